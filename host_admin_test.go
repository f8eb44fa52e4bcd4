package rewind_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// adminRig is a Host and its players on one simulated network, driven in
// made-up time.
type adminRig struct {
	t        *testing.T
	net      *transport.SimNetwork
	h        *rewind.Host[testgame.Input]
	now      time.Time
	sessions []*rewind.Session[testgame.Input]
	errs     []error
}

func newAdminRig(t *testing.T, players int) *adminRig {
	r := &adminRig{t: t, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r.net = transport.NewSimNetwork(11, r.now)
	r.net.SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond, Jitter: 2 * time.Millisecond})
	c, err := r.net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	r.h, err = rewind.NewHost[testgame.Input](&testgame.Game{}, c, rewind.HostOptions{Server: server.Config{StartPlayers: players}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.h.Close() })
	for range players {
		r.connect()
	}
	return r
}

// connect adds a player session; it returns its index.
func (r *adminRig) connect() int {
	i := len(r.sessions)
	conn, err := r.net.Dial("p"+string(rune('a'+i)), "server")
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { conn.Close() })
	s, err := rewind.Connect[testgame.Input](&testgame.Game{}, conn, rewind.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close() })
	s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
	r.sessions = append(r.sessions, s)
	r.errs = append(r.errs, nil)
	return i
}

// run advances d of made-up time; a session that fails stops there.
func (r *adminRig) run(d time.Duration) {
	for end := r.now.Add(d); r.now.Before(end); {
		r.now = r.now.Add(time.Millisecond)
		r.net.Advance(r.now)
		if err := r.h.Update(r.now); err != nil {
			r.t.Fatalf("host: %v", err)
		}
		for i, s := range r.sessions {
			if r.errs[i] == nil {
				r.errs[i] = s.Update(r.now)
			}
		}
	}
}

// TestHostEndMatch: the operator's end reaches every player as such (an
// EndedError with Operator, after every tick of the match), and the next
// player starts a new match.
func TestHostEndMatch(t *testing.T) {
	r := newAdminRig(t, 2)
	r.run(time.Second)
	if st := r.h.Stats(); !st.Running || st.Match.Players != 2 {
		t.Fatalf("before the end: %+v", st)
	}
	if err := r.h.EndMatch(); err != nil {
		t.Fatal(err)
	}
	r.run(2 * time.Second)
	for i, err := range r.errs {
		var e *rewind.EndedError
		if !errors.As(err, &e) || !e.Operator || !e.Complete() {
			t.Fatalf("player %d: %v, want the operator's end with every tick", i, err)
		}
	}
	i, j := r.connect(), r.connect()
	r.run(time.Second)
	if st := r.h.Stats(); r.errs[i] != nil || r.errs[j] != nil || st.Matches != 2 || !st.Running || st.Match.Players != 2 {
		t.Fatalf("after the end: %v %v, %+v", r.errs[i], r.errs[j], st)
	}
}

// TestHostRemoveAndClose: a removed player's session ends (kicked) and
// its seat is free; a closed host refuses a newcomer (full) while its
// players play on, and takes one again once opened.
func TestHostRemoveAndClose(t *testing.T) {
	r := newAdminRig(t, 2)
	r.run(time.Second)
	peers := r.h.Peers()
	if len(peers) != 2 || peers[0].BytesOut == 0 || peers[1].RTT <= 0 {
		t.Fatalf("peers %+v", peers)
	}
	if err := r.h.Remove(1); err != nil {
		t.Fatal(err)
	}
	r.run(500 * time.Millisecond)
	gone, stays := 1, 0 // the sessions of players 1 and 0
	if id, _ := r.sessions[0].Player(); id == 1 {
		gone, stays = 0, 1
	}
	if !errors.Is(r.errs[gone], rewind.ErrKicked) || errors.Is(r.errs[gone], rewind.ErrMatchEnded) {
		t.Fatalf("removed player: %v", r.errs[gone])
	}
	if err := r.h.Remove(1); !errors.Is(err, server.ErrNoPlayer) {
		t.Fatalf("remove again: %v", err)
	}
	r.h.SetClosed(true)
	i := r.connect()
	r.run(500 * time.Millisecond)
	var ref *rewind.RefusedError
	if !errors.As(r.errs[i], &ref) || ref.Reason != rewind.ReasonFull || !r.h.Closed() {
		t.Fatalf("a newcomer to a closed host: %v", r.errs[i])
	}
	r.h.SetClosed(false)
	j := r.connect()
	r.run(time.Second)
	if r.errs[stays] != nil || r.errs[j] != nil || r.h.Stats().Match.Players != 2 {
		t.Fatalf("opened again: %v %v, %+v", r.errs[stays], r.errs[j], r.h.Stats().Match)
	}
}
