package server_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// rig is a server on a simulated network with hand-driven raw peers.
type rig struct {
	t      *testing.T
	net    *transport.SimNetwork
	srv    *server.Server[testgame.Input]
	now    time.Time
	events []game.Event
}

func newRig(t *testing.T, cfg server.Config) *rig {
	t.Helper()
	r := &rig{t: t, net: transport.NewSimNetwork(1, t0), now: t0}
	conn, err := r.net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	g := &eventLog{r: r}
	srv, err := server.New[testgame.Input](g, conn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = srv
	return r
}

// eventLog is the test game recording the server's events.
type eventLog struct {
	testgame.Game
	r *rig
}

func (e *eventLog) Step(w *world.World, t *game.Tick[testgame.Input]) {
	e.r.events = append(e.r.events, t.Events...)
	e.Game.Step(w, t)
}

func (r *rig) peer(name string) *transport.SimConn {
	c, err := r.net.Dial(name, "server")
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

func (r *rig) run(d time.Duration) {
	for end := r.now.Add(d); r.now.Before(end); {
		r.now = r.now.Add(time.Millisecond)
		r.net.Advance(r.now)
		if err := r.srv.Update(r.now); err != nil {
			r.t.Fatal(err)
		}
	}
}

func recvAll(c *transport.SimConn) [][]byte {
	var out [][]byte
	buf := make([]byte, 2000)
	for {
		n, _, err := c.Recv(buf)
		if err != nil {
			return out
		}
		out = append(out, append([]byte(nil), buf[:n]...))
	}
}

func (r *rig) hello(c *transport.SimConn, h codec.Hello) {
	if err := c.Send("sim:server", h.Append(nil)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) fingerprint() uint64 { return r.srv.Fingerprint() }

// welcome says hello as c and returns the welcome.
func (r *rig) welcome(c *transport.SimConn) codec.Welcome {
	r.t.Helper()
	r.hello(c, codec.Hello{Game: r.fingerprint()})
	r.run(time.Millisecond)
	for _, b := range recvAll(c) {
		if typ, _, _ := codec.Peek(b); typ == codec.TypeWelcome {
			w, _, err := codec.ParseWelcome(b)
			if err != nil {
				r.t.Fatal(err)
			}
			return w
		}
	}
	r.t.Fatal("no welcome")
	return codec.Welcome{}
}

// join says hello as c, then speaks with the welcome's tag (an ack and no
// inputs), as a client does: the player counts toward StartPlayers.
func (r *rig) join(c *transport.SimConn) codec.Welcome {
	r.t.Helper()
	w := r.welcome(c)
	m := codec.ClientInputs{Tag: w.Tag, First: 1, Ack: reliable.Ack{Next: 1}}
	if err := c.Send("sim:server", m.Append(nil)); err != nil {
		r.t.Fatal(err)
	}
	r.run(time.Millisecond)
	return w
}

// TestStartWaitsForWelcomedPlayers: the match starts once StartPlayers
// players have answered their welcomes, not at their hellos.
func TestStartWaitsForWelcomedPlayers(t *testing.T) {
	r := newRig(t, server.Config{StartPlayers: 2})
	a, b := r.peer("a"), r.peer("b")
	r.join(a)
	r.welcome(b)
	r.run(100 * time.Millisecond)
	if r.srv.Started() {
		t.Fatal("started with one of two players answering")
	}
	r.join(b)
	r.run(100 * time.Millisecond)
	if !r.srv.Started() || r.srv.Tick() < 5 {
		t.Fatalf("not started (tick %d) with both in", r.srv.Tick())
	}
}

func refusal(t *testing.T, c *transport.SimConn) codec.Reason {
	t.Helper()
	for _, b := range recvAll(c) {
		if typ, _, _ := codec.Peek(b); typ == codec.TypeRefuse {
			m, _, err := codec.ParseRefuse(b)
			if err != nil {
				t.Fatal(err)
			}
			return m.Reason
		}
	}
	t.Fatal("no refusal")
	return 0
}

func TestMaxPlayersMatchesCodec(t *testing.T) {
	if game.MaxPlayers != codec.MaxPlayers {
		t.Fatalf("game.MaxPlayers %d != codec.MaxPlayers %d", game.MaxPlayers, codec.MaxPlayers)
	}
}

func TestRefusals(t *testing.T) {
	r := newRig(t, server.Config{MaxPlayers: 1, StartPlayers: 1})
	a := r.peer("a")
	if w := r.join(a); w.Player != 0 || w.TickRate != 60 || w.Tag == 0 {
		t.Fatalf("welcome %+v", w)
	}

	b := r.peer("b")
	r.hello(b, codec.Hello{Game: r.fingerprint()})
	r.run(time.Millisecond)
	if got := refusal(t, b); got != codec.ReasonFull {
		t.Errorf("second player of one: %v", got)
	}
	r.hello(b, codec.Hello{Game: r.fingerprint() + 1})
	r.run(time.Millisecond)
	if got := refusal(t, b); got != codec.ReasonGame {
		t.Errorf("other game: %v", got)
	}
	h := codec.Hello{Game: r.fingerprint()}
	raw := h.Append(nil)
	raw[5] = 99 // protocol version 99
	if err := b.Send("sim:server", raw); err != nil {
		t.Fatal(err)
	}
	r.run(time.Millisecond)
	if got := refusal(t, b); got != codec.ReasonProtocol {
		t.Errorf("other protocol: %v", got)
	}
	r.hello(b, codec.Hello{Game: r.fingerprint(), HasCookie: true})
	r.run(time.Millisecond)
	if got := refusal(t, b); got != codec.ReasonCookie {
		t.Errorf("unknown cookie: %v", got)
	}
	if st := r.srv.Stats(); st.Refused != 4 || st.Players != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestIdentityIsTheAddress: a datagram with a player's tag from another
// address is dropped, and a hello repeated from the same address gets the
// same welcome, cookie included: hellos repeated many times over a lossy
// path must not retire the cookie of the one welcome that got through.
func TestIdentityIsTheAddress(t *testing.T) {
	r := newRig(t, server.Config{StartPlayers: 2})
	a := r.peer("a")
	w := r.welcome(a)
	for range 10 {
		if again := r.welcome(a); again.Player != w.Player || again.Tag != w.Tag || again.Tick != w.Tick ||
			again.Transfer != w.Transfer || again.Cookie != w.Cookie {
			t.Fatalf("repeated hello: %+v, then %+v", w, again)
		}
	}
	intruder := r.peer("x")
	m := codec.ClientInputs{Tag: w.Tag, First: 1, Ack: reliable.Ack{Next: 1}}
	if err := intruder.Send("sim:server", m.Append(nil)); err != nil {
		t.Fatal(err)
	}
	r.run(time.Millisecond)
	if st := r.srv.Stats(); st.BadDatagrams != 1 || st.Players != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestLeaveByByeAndTimeout: a bye leaves in the next tick; silence leaves
// after PlayerTimeout; both show as leave events.
func TestLeaveByByeAndTimeout(t *testing.T) {
	r := newRig(t, server.Config{StartPlayers: 2, PlayerTimeout: 500 * time.Millisecond})
	a, b := r.peer("a"), r.peer("b")
	wa, wb := r.join(a), r.join(b)
	keepAlive := func(c *transport.SimConn, w codec.Welcome) {
		m := codec.ClientInputs{Tag: w.Tag, First: r.srv.Tick() + 1, Ack: reliable.Ack{Next: 1}}
		_ = c.Send("sim:server", m.Append(nil))
	}
	for range 20 {
		keepAlive(a, wa)
		keepAlive(b, wb)
		r.run(10 * time.Millisecond)
	}
	if len(r.events) != 2 {
		t.Fatalf("events %v, want two joins", r.events)
	}
	bye := codec.Bye{Tag: wa.Tag}
	_ = a.Send("sim:server", bye.Append(nil))
	r.run(20 * time.Millisecond)
	if len(r.events) != 3 || r.events[2] != (game.Event{Kind: game.Leave, Player: game.PlayerID(wa.Player)}) {
		t.Fatalf("after bye: %v", r.events)
	}
	r.run(time.Second) // b is silent
	if len(r.events) != 4 || r.events[3] != (game.Event{Kind: game.Leave, Player: game.PlayerID(wb.Player)}) {
		t.Fatalf("after silence: %v", r.events)
	}
	if st := r.srv.Stats(); st.Players != 0 || st.Leaves != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestBadDatagramsCounted: garbage is counted and dropped while the match
// goes on.
func TestBadDatagramsCounted(t *testing.T) {
	r := newRig(t, server.Config{})
	a := r.peer("a")
	w := r.join(a)
	for _, b := range [][]byte{{}, {0xFF}, {0x10, w.Tag}, {0x20, w.Tag, 1, 2, 3}, {0xF5, 'R', 'W', 'N', 0xF1}, make([]byte, 1200)} {
		_ = a.Send("sim:server", b)
	}
	r.run(100 * time.Millisecond)
	st := r.srv.Stats()
	if st.BadDatagrams != 6 {
		t.Errorf("%d bad datagrams counted, want 6", st.BadDatagrams)
	}
	if st.Tick < 5 {
		t.Errorf("the match stopped at tick %d", st.Tick)
	}
}

// TestLateInputsRepeatLast: a player who sends nothing keeps its last
// input, marked late in every tick.
func TestLateInputsRepeatLast(t *testing.T) {
	r := newRig(t, server.Config{})
	a := r.peer("a")
	w := r.welcome(a)
	it, err := inputs.NewType[testgame.Input]()
	if err != nil {
		t.Fatal(err)
	}
	in := testgame.Input{DX: 2, Fire: true}
	p := it.Pack(make([]byte, it.Size()), &in)
	m := codec.ClientInputs{Tag: w.Tag, First: 1, Ack: reliable.Ack{Next: 1}, Count: 3,
		Payload: it.AppendInputs(nil, [][]byte{p, p, p})}
	_ = a.Send("sim:server", m.Append(nil))
	r.run(200 * time.Millisecond)
	st := r.srv.Stats()
	if st.Tick < 10 || st.LateInputs != uint64(st.Tick-3) {
		t.Fatalf("stats %+v: want every tick after 3 late", st)
	}
}

func TestNewErrors(t *testing.T) {
	net := transport.NewSimNetwork(1, t0)
	conn, _ := net.Listen("s")
	defer conn.Close()
	type bad struct{ S string }
	if _, err := server.New[bad](nil, conn, server.Config{}); !errors.Is(err, inputs.ErrBadSchema) {
		t.Errorf("input with a string: %v", err)
	}
}
