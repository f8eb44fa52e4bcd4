package rooms

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// canHost says whether a session that Join made may host a match it
// takes over: not under js/wasm, where the RTCPeerConnection is the
// page's and the match runs in a Worker, so that the hosting needs the
// page's side (a browser tab does it with its own claims: view/page,
// view/page/worker); Join's claims there say roomclient.ClaimOptions.NoHost
// and the relay hands the hosting to another claimant (docs/rooms.md).
const canHost = runtime.GOOS != "js"

// relayList is the relays a session claims its room through: the one
// that last answered first, then the others in the order given.
type relayList struct {
	mu   sync.Mutex
	urls []string // urls[0]: the last that answered
}

// newRelayList orders first, then url and more, each once.
func newRelayList(first, url string, more []string) *relayList {
	l := &relayList{}
	for _, u := range append([]string{first, url}, more...) {
		if u != "" && !slices.Contains(l.urls, u) {
			l.urls = append(l.urls, u)
		}
	}
	return l
}

// get returns the list, the last relay that answered first.
func (l *relayList) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.urls)
}

// answered puts url first.
func (l *relayList) answered(url string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.urls, url); i > 0 {
		l.urls = append(append([]string{url}, l.urls[:i]...), l.urls[i+1:]...)
	}
}

// migrator returns the migrate.Migrator of a session that joined a room
// at one of relays: it claims the room with the code and key of the handover
// data (roomclient.ClaimRoom) and either hosts the match from the session's
// handoff (a server resumed from it, over the room's WebRTC host and an
// in-process loopback to the session's own client) or connects to the
// host the relay introduces, whose loss the relay's notice tells
// (Migrated.Lost). A claim that fails for any reason but the room's end
// or another match's key is made again, until opts.MigrationTimeout: the
// host it was sent to may have gone in the meantime (the relay then
// orphans the room and the next claim takes it over), or the relay may
// have been busy.
func migrator[I any](game func() rewind.Game[I], relays *relayList, opts JoinOptions) migrate.Migrator[I] {
	log, timeout := opts.migrationSettings()
	return func(ctx context.Context, h client.Handoff) (migrate.Migrated[I], error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		c, err := claim(ctx, relays, h, opts, log)
		if err != nil {
			return migrate.Migrated[I]{}, fmt.Errorf("rooms: claim: %w", err)
		}
		if c.Player != nil {
			return migrate.Migrated[I]{Conn: &Conn{Peer: c.Player.Conn(), p: c.Player}, Lost: c.Player.HostLost()}, nil
		}
		return hostResumed(game(), c.Host, h, relays, opts)
	}
}

// watchAgain returns the migrate.Migrator of a spectator's session
// that joined the room code at one of relays: it joins the room again as
// a spectator (roomclient.JoinAgain), to whoever hosts the match now,
// until opts.MigrationTimeout; the session goes on from its last
// verified world (h), as a player's does.
func watchAgain[I any](relays *relayList, code string, opts JoinOptions) migrate.Migrator[I] {
	log, timeout := opts.migrationSettings()
	return func(ctx context.Context, h client.Handoff) (migrate.Migrated[I], error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		log.Debug("rooms: watching again", "room", code, "tick", h.Tick)
		urls := relays.get()
		p, err := roomclient.JoinAgain(ctx, roomclient.JoinOptions{URL: urls[0], URLs: urls[1:], Code: code, WebRTC: opts.WebRTC, Spectator: true})
		if err != nil {
			log.Debug("rooms: watching again failed", "room", code, "err", err)
			return migrate.Migrated[I]{}, fmt.Errorf("rooms: watching room %s again: %w", code, err)
		}
		relays.answered(p.URL())
		log.Debug("rooms: watching again", "room", code, "relay", p.URL())
		return migrate.Migrated[I]{Conn: &Conn{Peer: p.Conn(), p: p}, Lost: p.HostLost()}, nil
	}
}

// migrationSettings is opts's logger (discarding, if none) and its
// MigrationTimeout (DefaultMigrationTimeout, if none).
func (opts JoinOptions) migrationSettings() (*slog.Logger, time.Duration) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	timeout := opts.MigrationTimeout
	if timeout <= 0 {
		timeout = DefaultMigrationTimeout
	}
	return log, timeout
}

// claim claims the room of h's handover data, through the relays of the
// list in turn (roomclient.ClaimOptions.URLs), until a relay answers
// with a host or a connected player, the room ended or is another
// match's, or ctx ends; between tries it waits a little longer each
// time (100 ms, doubling up to a second).
func claim(ctx context.Context, relays *relayList, h client.Handoff, opts JoinOptions, log *slog.Logger) (*roomclient.Claimed, error) {
	var pause roomclient.Backoff
	for try := 1; ; try++ {
		log.Debug("rooms: claiming", "room", h.Handover.Code, "player", h.Player, "tick", h.Tick, "try", try)
		urls := relays.get()
		c, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: urls[0], URLs: urls[1:], Code: h.Handover.Code,
			Key: h.Handover.Key, NoHost: !canHost, Host: roomclient.HostOptions{WebRTC: opts.WebRTC}})
		if err == nil {
			url := claimedAt(c)
			relays.answered(url)
			log.Debug("rooms: claimed", "room", h.Handover.Code, "player", h.Player, "outcome", c.Outcome, "relay", url)
			return c, nil
		}
		log.Debug("rooms: claim failed", "room", h.Handover.Code, "player", h.Player, "err", err)
		if errors.Is(err, roomproto.ErrRoomEnded) || errors.Is(err, roomproto.ErrBadKey) || ctx.Err() != nil {
			return nil, err
		}
		if !pause.Wait(ctx) {
			return nil, err
		}
	}
}

// claimedAt is the relay that answered the claim c.
func claimedAt(c *roomclient.Claimed) string {
	if c.Host != nil {
		return c.Host.URL()
	}
	return c.Player.URL()
}

// hostResumed runs the match's next server over room (and a loopback to
// the session's own client), resumed from h. It watches the room's
// relay connection (watchResumed): Migrated.Lost is closed when the
// room is another claimant's now, and the session then stops hosting
// and goes on as a player of the new host.
func hostResumed[I any](g rewind.Game[I], room *roomclient.HostedRoom, h client.Handoff, relays *relayList, opts JoinOptions) (migrate.Migrated[I], error) {
	m, err := migrate.Resume(g, relayConn{Host: room.Conn(), leave: room}, h, opts.Server)
	if err != nil {
		return m, fmt.Errorf("rooms: %w", err)
	}
	lost, stop := make(chan struct{}), make(chan struct{})
	log, _ := opts.migrationSettings()
	go watchResumed(room, relays, stop, lost, log)
	if k, ok := m.Server.(keyHolder); ok { // a *server.Server
		go rotateKeys(room, k.Departures, k.SetRoomKey, stop, log) // rekey.go
	}
	m.Lost = lost
	// The watch stops first: closing the server's transports leaves the
	// room, which ends its relay connection.
	m.Closers = append([]io.Closer{closeFunc(sync.OnceValue(func() error { close(stop); return nil }))}, m.Closers...)
	return m, nil
}

// closeFunc is a function as an io.Closer.
type closeFunc func() error

// Close implements io.Closer.
func (f closeFunc) Close() error { return f() }

// watchResumed watches the relay connection of room, which a session
// hosts since it took the match over, until stop is closed. When it ends
// (the relay dropped the host: a process stopped or a machine asleep
// past the relay's ping, whose players then took the room over; or the
// relay went) the room is claimed back through relays (reclaimRoom),
// and watched again if this session hosts it still. If another claimant
// hosts it now (roomclient.ErrTakenOver), lost is closed: this
// session's server serves no one any more.
func watchResumed(room *roomclient.HostedRoom, relays *relayList, stop <-chan struct{}, lost chan<- struct{}, log *slog.Logger) {
	for {
		select {
		case <-stop:
			return
		case <-room.Done():
		}
		log.Debug("rooms: the relay connection of the room this session hosts ended: claiming it back",
			"room", room.Code(), "relay", room.URL(), "err", room.Err())
		err := reclaimRoom(room, relays.get(), stop, log)
		switch {
		case err == nil:
			relays.answered(room.URL())
		case errors.Is(err, roomclient.ErrTakenOver):
			log.Info("rooms: another player hosts the room now: joining its match as a player", "room", room.Code())
			close(lost)
			return
		default:
			log.Debug("rooms: the room was not claimed back", "room", room.Code(), "err", err)
			return
		}
	}
}
