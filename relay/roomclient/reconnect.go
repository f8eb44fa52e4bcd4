package roomclient

import (
	"context"
	"errors"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// A match server whose relay connection drops (its relay died, or the
// network between them failed) connects again, with
// ServeOptions.Reconnect: to the relays of ServeOptions.URLs and URL in
// turn, starting with the one after the relay it lost, round after round
// with a doubling wait, until one registers it or Reconnect has passed.
// There it claims each of its rooms back (a "claim" with the room's code
// and key on the match server's connection, relay/serve_claim.go): the
// rooms keep their codes, and the fleet's directory makes the new relay
// their owner (at once for a room the old relay let go, or once a dead
// relay is found dead: a room still held elsewhere is answered
// room_busy, and claimed again after a wait). A room that ended
// meanwhile (room_ended), or that is another match's (bad_key), is ended
// here (OnEnded). Players already connected keep playing all along: their
// data channels do not pass through the relay.

// keep watches the relay connection and reconnects when it drops; it
// closes done when the connection ends for good.
func (s *ServedRooms) keep() {
	defer s.wg.Done()
	defer close(s.done)
	var pause time.Duration // before reconnecting: a connection that ends at once (the relay refuses a claim) is not redialed in a loop
	for {
		rc := s.client()
		since := time.Now()
		if !s.watch(rc) {
			return
		}
		err := s.end.err(rc)
		if s.opts.OnLost != nil {
			s.opts.OnLost(err)
		}
		if s.opts.Reconnect <= 0 {
			return
		}
		if time.Since(since) < maxReconnectWait {
			pause = min(max(s.firstWait(), 2*pause), maxReconnectWait)
		} else {
			pause = 0
		}
		if !s.sleep(pause) || !s.reconnect() {
			return
		}
	}
}

// sleep waits d, or less if Close is called (false).
func (s *ServedRooms) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-s.stop:
		return false
	case <-time.After(d):
		return true
	}
}

// watch waits until rc ends (true) or Close is called (false), claiming
// again the rooms whose claims were answered room_busy meanwhile.
func (s *ServedRooms) watch(rc *roomClient) bool {
	wait := s.firstWait()
	for {
		select {
		case <-s.stop:
			return false
		case <-rc.done:
			return !s.isClosed()
		case <-s.retry:
		}
		select { // the fleet lets a room go within its TTL: wait a little
		case <-s.stop:
			return false
		case <-rc.done:
			return !s.isClosed()
		case <-time.After(wait):
		}
		wait = min(2*wait, maxReconnectWait)
		s.claimAll(rc, true)
	}
}

// maxReconnectWait caps the wait between tries.
const maxReconnectWait = 2 * time.Second

func (s *ServedRooms) firstWait() time.Duration {
	if s.opts.ReconnectWait > 0 {
		return s.opts.ReconnectWait
	}
	return 100 * time.Millisecond
}

func (s *ServedRooms) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// reconnect registers the server at the first relay that answers, trying
// them in turn for Reconnect, and claims its rooms back there; false if
// none answered in time or Close was called.
func (s *ServedRooms) reconnect() bool {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Reconnect)
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	urls := append([]string{s.opts.URL}, s.opts.URLs...)
	s.mu.Lock()
	next, gen := 0, s.gen+1
	for i, u := range urls {
		if u == s.url {
			next = i + 1
		}
	}
	s.mu.Unlock()
	pause := Backoff{First: s.firstWait(), Max: maxReconnectWait}
	for try := 0; ; try++ {
		url := urls[(next+try)%len(urls)]
		tctx, tcancel := context.WithTimeout(ctx, 5*time.Second)
		rc, _, start, err := s.register(tctx, url, gen)
		tcancel()
		if err == nil {
			return s.switchTo(rc, start, url, gen)
		}
		if ctx.Err() != nil {
			return false
		}
		if (try+1)%len(urls) == 0 && !pause.Wait(ctx) { // a round of every relay: wait
			return false
		}
	}
}

// switchTo makes rc, registered at url, the relay connection and claims
// every room back on it; false (rc closed) if Close was called meanwhile.
func (s *ServedRooms) switchTo(rc *roomClient, start func(), url string, gen int) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		rc.close()
		return false
	}
	old := s.rc
	s.rc, s.url, s.gen = rc, url, gen
	s.hosts, s.claims = nil, nil // their connection is gone: their callers were told
	s.mu.Unlock()
	old.close() // ended already: waits for its goroutines
	start()
	if s.opts.OnReconnected != nil {
		s.opts.OnReconnected(url)
	}
	s.claimAll(rc, false)
	return true
}

// claimAll claims the rooms back on rc: every room held, or (retries)
// those whose claim was answered room_busy.
func (s *ServedRooms) claimAll(rc *roomClient, retries bool) {
	s.mu.Lock()
	var msgs []*roomproto.Msg
	for code, key := range s.keys {
		if retries && !s.retries[code] {
			continue
		}
		delete(s.retries, code)
		s.claims = append(s.claims, code)
		msgs = append(msgs, &roomproto.Msg{Type: roomproto.MsgClaim, V: roomproto.V1, Code: code, Key: key, MaxPlayers: s.opts.MaxPlayers})
	}
	s.mu.Unlock()
	for _, m := range msgs {
		rc.send(m)
	}
}

// reclaimed takes the relay's answer to the oldest claim waiting: hosted
// (err nil), or refused. A refusal that may pass (room_busy, full,
// no_room: the fleet has not let the room go yet) has the room claimed
// again after a wait; room_ended and bad_key end the room here.
func (s *ServedRooms) reclaimed(code string, err error) {
	s.mu.Lock()
	if len(s.claims) == 0 {
		s.mu.Unlock()
		return
	}
	if code == "" {
		code = s.claims[0]
	}
	s.claims = s.claims[1:]
	_, held := s.keys[code]
	final := errors.Is(err, roomproto.ErrRoomEnded) || errors.Is(err, roomproto.ErrBadKey)
	switch {
	case err == nil || !held:
	case final:
		delete(s.keys, code)
	default:
		s.retries[code] = true
	}
	s.mu.Unlock()
	switch {
	case err == nil || !held:
	case final:
		if s.opts.OnEnded != nil {
			s.opts.OnEnded(code, err.Error())
		}
	default:
		select {
		case s.retry <- struct{}{}:
		default:
		}
	}
}
