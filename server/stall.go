package server

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/rewindnet/rewind/codec"
)

// StallKind is a kind of stall policy.
type StallKind uint8

// The stall policies (docs/networking.md, "Stall policies").
const (
	// StallNever never holds a tick: an input that has not arrived keeps
	// the player's last one (the default).
	StallNever StallKind = iota
	// StallWait holds a tick up to Stall.Wait for a present player's
	// missing input, then runs it with the last one.
	StallWait
	// StallAcks holds the match while a present player has not
	// acknowledged a tick Stall.Acks ticks old (PNEngine's policy), until
	// it does or it is dropped after PlayerTimeout of silence.
	StallAcks
)

// Stall is a server's stall policy. The zero value is StallNever.
type Stall struct {
	Kind StallKind
	// Wait is StallWait's longest hold of one tick (default 100 ms).
	Wait time.Duration
	// Acks is StallAcks's K, in ticks (default half the tick rate).
	Acks int
}

// ParseStall reads a stall policy as `rewind serve --stall` takes it:
// never, wait:DURATION or acks:K (acks alone: K is half the tick rate).
func ParseStall(v string) (Stall, error) {
	kind, arg, has := strings.Cut(v, ":")
	switch {
	case kind == "never" && !has:
		return Stall{}, nil
	case kind == "wait" && has:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 || d > time.Minute {
			return Stall{}, fmt.Errorf("stall %q: want wait:DURATION, a positive duration up to 1m: %w", v, ErrConfig)
		}
		return Stall{Kind: StallWait, Wait: d}, nil
	case kind == "acks" && !has:
		return Stall{Kind: StallAcks}, nil
	case kind == "acks":
		k, err := strconv.Atoi(arg)
		if err != nil || k < 1 || k > 3600 {
			return Stall{}, fmt.Errorf("stall %q: want acks:K, K ticks in 1..3600: %w", v, ErrConfig)
		}
		return Stall{Kind: StallAcks, Acks: k}, nil
	}
	return Stall{}, fmt.Errorf("stall %q: want never, wait:DURATION or acks:K: %w", v, ErrConfig)
}

// String writes the policy as ParseStall reads it.
func (st Stall) String() string {
	switch st.Kind {
	case StallWait:
		return "wait:" + st.Wait.String()
	case StallAcks:
		return "acks:" + strconv.Itoa(st.Acks)
	}
	return "never"
}

// stallState is the server's hold of the next tick.
type stallState struct {
	held    bool      // the next tick is held
	since   time.Time // when the held tick was due
	began   time.Time // when the hold began
	waiting uint64    // bit p: the hold waits for player p
	sentAt  time.Time // the last Waiting round
}

// hold reports whether tick s.tick+1, due, waits under the stall policy,
// and keeps the waiting set. When a hold ends, the tick schedule moves
// on from now: no tick is skipped and none runs early to catch up.
func (s *Server[I]) hold(now time.Time) bool {
	st := &s.stall
	waiting := s.waitingFor()
	if !st.held {
		st.since = s.tickTime(s.tick + 1)
	}
	if waiting != 0 && s.cfg.Stall.Kind == StallWait && now.Sub(st.since) >= s.cfg.Stall.Wait {
		waiting = 0 // waited long enough: the last input stands
	}
	if waiting != st.waiting && s.cfg.OnWaiting != nil {
		s.cfg.OnWaiting(now, s.tick, waiting)
	}
	st.waiting = waiting
	switch {
	case waiting != 0 && !st.held:
		st.held, st.began = true, now
		st.sentAt = time.Time{}
		s.stats.Stalls++
	case waiting == 0 && st.held:
		st.held = false
		d := now.Sub(st.began)
		s.stats.StallTime += d
		s.stats.LongestStall = max(s.stats.LongestStall, d)
		if late := now.Sub(s.tickTime(s.tick + 1)); late > 0 {
			s.start = s.start.Add(late) // the schedule resumes from now
		}
	}
	return st.held
}

// waitingFor returns the players the policy holds the next tick for:
// present, not leaving, not loading a world; under StallWait those whose
// input for it has not come (once they have sent one), under StallAcks those who have not
// acknowledged the tick Acks ticks before it (counting from their join).
func (s *Server[I]) waitingFor() uint64 {
	pol := s.cfg.Stall
	if pol.Kind == StallNever {
		return 0
	}
	t := s.tick + 1
	k := uint32(pol.Acks)
	if k == 0 {
		k = uint32(max(s.tickRate/2, 1))
	}
	var w uint64
	for id, p := range s.players {
		if p == nil || !p.present || p.leaving || !p.awaitUntil.IsZero() || p.xfer != nil || p.rebasing {
			continue
		}
		switch pol.Kind {
		case StallWait:
			if p.inputFrom != 0 && int32(t-p.inputFrom) >= 0 && p.qAt[t&s.qmask] != t {
				w |= 1 << id
			}
		case StallAcks:
			acked := max(p.res.Base()-1, p.joinTick, p.welcomeTick)
			if int32(t-acked) > int32(k) {
				w |= 1 << id
			}
		}
	}
	return w
}

// WaitingFor returns the players the server holds the match for (bit p
// for player p; 0 when the match is not stalled).
func (s *Server[I]) WaitingFor() uint64 { return s.stall.waiting }

// sendWaiting tells every player whom the held match waits for, once a
// round while the hold lasts.
func (s *Server[I]) sendWaiting() error {
	if !s.stall.held {
		return nil
	}
	for _, p := range s.players {
		if p == nil || p.leaving || p.addr == "" {
			continue
		}
		m := codec.Waiting{Tag: p.tag, Tick: s.tick, Players: s.stall.waiting}
		if err := s.send(p.addr, m.Append(s.wire.sbuf[:0])); err != nil {
			return err
		}
	}
	return nil
}

// WaitingIDs writes the players of a waiting set as decimal ids,
// comma-separated ("" for none): the waiting_for= of logs.
func WaitingIDs(set uint64) string {
	var b []byte
	for set != 0 {
		p := bits.TrailingZeros64(set)
		set &^= 1 << p
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return string(b)
}
