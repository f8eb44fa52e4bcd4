package webdoom

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/internal/tools/webdoomclient"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// The harness: WebDoom clients over real WebSockets on 127.0.0.1, against
// a server with WebDoom's timers shortened so a session runs in seconds.

func wdHarnessConfig() ServerConfig {
	cfg := DefaultServerConfig()
	cfg.Fabricate = 100 * time.Millisecond
	cfg.Drop = 700 * time.Millisecond
	cfg.NeverJoined = 1200 * time.Millisecond
	cfg.JoinTimeout = 1500 * time.Millisecond
	cfg.Sweep = 10 * time.Millisecond
	cfg.Countdown = 30 * time.Millisecond
	return cfg
}

// startWebDoom serves cfg on 127.0.0.1:0 and returns the ws:// base URL;
// cleanup closes it and checks that no goroutine leaked.
func startWebDoom(t *testing.T, cfg ServerConfig) (*Server, string) {
	t.Helper()
	return startOn(t, cfg, func(l net.Listener) net.Listener { return l })
}

// startOn is startWebDoom with the listener wrapped by wrap.
func startOn(t *testing.T, cfg ServerConfig, wrap func(net.Listener) net.Listener) (*Server, string) {
	t.Helper()
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second) // generous: a loaded machine winds sockets down slowly
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln = wrap(ln)
	s := NewServer(cfg)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s, "ws://" + ln.Addr().String()
}

func wdCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func wdDial(t *testing.T, base, path string) *webdoomclient.Conn {
	t.Helper()
	c, err := webdoomclient.Dial(wdCtx(t, 5*time.Second), base, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// until reads lobby messages until one of type typ arrives.
func wdUntil(t *testing.T, c *webdoomclient.Conn, typ string) map[string]any {
	t.Helper()
	ctx := wdCtx(t, 5*time.Second)
	for {
		m, err := c.ReadLobby(ctx)
		if err != nil {
			t.Fatalf("waiting for %q: %v", typ, err)
		}
		if m["t"] == typ {
			return m
		}
	}
}

// wdReadEnd reads and discards c's messages until a read fails, within
// 5 s, and returns whether the 5 s ran out first and the read's error.
func wdReadEnd(t *testing.T, c *webdoomclient.Conn) (timedOut bool, err error) {
	ctx := wdCtx(t, 5*time.Second)
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return ctx.Err() != nil, err
		}
	}
}

// wdRefused checks that the server ended c without a close frame.
func wdRefused(t *testing.T, c *webdoomclient.Conn, what string) {
	t.Helper()
	timedOut, err := wdReadEnd(t, c)
	if timedOut {
		t.Fatalf("%s: still open", what)
	}
	if st := webdoomclient.CloseStatus(err); st != -1 {
		t.Fatalf("%s: got close frame %d, want a terminated socket", what, st)
	}
}

// wdClosedWith checks that the server closed c with a close frame of status.
func wdClosedWith(t *testing.T, c *webdoomclient.Conn, status int, what string) {
	t.Helper()
	_, err := wdReadEnd(t, c)
	if st := webdoomclient.CloseStatus(err); st != status {
		t.Fatalf("%s: ended with %d (%v), want close %d", what, st, err, status)
	}
}

func TestHarnessSession(t *testing.T) {
	cfg := wdHarnessConfig()
	// A player is fabricated once silent for Fabricate: 300 ms (not 100)
	// so that a loaded machine stalling the test between one player's
	// cmd and the next does not fabricate a player that is playing.
	cfg.Fabricate = 300 * time.Millisecond
	// A drop-in is given up JoinTimeout after its lobby join unless it is
	// live by then: 10 s (not 1.5), since here it first waits for the
	// others' bundles to settle and for its history (not tested here).
	cfg.JoinTimeout = 10 * time.Second
	srv, base := startWebDoom(t, cfg)

	// Lobby: four seats in join order, the fifth refused.
	var lobby [4]*webdoomclient.Conn
	for i := range lobby {
		lobby[i] = wdDial(t, base, "/ws/lobby")
		w := wdUntil(t, lobby[i], "welcome")
		if w["slot"] != float64(i) || w["color"] != wire.Colors[i] {
			t.Fatalf("welcome %d: %v", i, w)
		}
	}
	fifth := wdDial(t, base, "/ws/lobby")
	if m := wdUntil(t, fifth, "full"); m["reason"] != "lobby full" {
		t.Fatalf("fifth: %v", m)
	}
	wdRefused(t, fifth, "fifth lobby socket")
	for i, name := range []string{"Alice", "B<o>b", "", "Dave the Great"} {
		lobby[i].SendJSON(wdCtx(t, time.Second), fmt.Sprintf(`{"t":"name","name":%q}`, name))
	}
	lobby[1].SendJSON(wdCtx(t, time.Second), `{"t":"params","params":{"episode":12,"map":0,"skill":"4","mode":"altdeath","timer":25,"fast":1}}`)
	lobby[1].SendJSON(wdCtx(t, time.Second), `{"t":"slot","slot":0}`) // taken: no effect
	lobby[2].SendJSON(wdCtx(t, time.Second), `this is not JSON`)
	lobby[2].SendJSON(wdCtx(t, time.Second), `{"t":"ping","t0":1234.5}`)
	if m := wdUntil(t, lobby[2], "pong"); m["t0"] != 1234.5 {
		t.Fatalf("pong %v", m)
	}
	var roster map[string]any
	for {
		roster = wdUntil(t, lobby[3], "roster")
		if p := roster["params"].(map[string]any); p["mode"] == "altdeath" && strings.Contains(fmt.Sprint(roster["players"]), "Dave") &&
			strings.Contains(fmt.Sprint(roster["players"]), "Alice") && strings.Contains(fmt.Sprint(roster["players"]), "Bob") {
			break
		}
	}
	if p := roster["params"].(map[string]any); p["episode"] != 9.0 || p["map"] != 1.0 || p["skill"] != 4.0 || p["timer"] != 0.0 || p["fast"] != true {
		t.Fatalf("params clamping: %v", p)
	}
	names := fmt.Sprint(roster["players"])
	for _, want := range []string{"name:Alice", "name:Bob", "name:Brown", "name:Dave the G"} {
		if !strings.Contains(names, want) {
			t.Fatalf("roster names %s lack %s", names, want)
		}
	}

	// Start: countdown 3, 2, 1, then launch.
	lobby[3].SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	for n := 3; n >= 1; n-- {
		if m := wdUntil(t, lobby[0], "countdown"); m["n"] != float64(n) {
			t.Fatalf("countdown %v, want %d", m, n)
		}
	}
	l := wdUntil(t, lobby[0], "launch")
	if fmt.Sprint(l["slots"]) != "[0 1 2 3]" || fmt.Sprint(l["names"]) != "[Alice Bob Brown Dave the G]" || l["numplayers"] != 4.0 {
		t.Fatalf("launch %v", l)
	}

	// Game: nothing before every cmd is in; sealed the instant the last arrives.
	var ps [4]*wdPlayer
	for i := range ps {
		ps[i] = wdPlay(t, base, fmt.Sprintf("/ws/game?slot=%d", i))
	}
	for i := 0; i < 3; i++ {
		ps[i].send(t, 0, int8(i+1))
	}
	// Once the core holds the three cmds it has decided: no seal yet, so
	// no bundle is on its way (no sleeping for silence).
	wdCmdsHeld(t, srv, 0, 0, 1, 2)
	var sealed uint32
	srv.query(func(c *Core) { sealed = c.session.next })
	if sealed != 0 || ps[0].count() != 0 {
		t.Fatalf("three of four cmds: next tic %d, %d bundles", sealed, ps[0].count())
	}
	sent3 := time.Now() // slot 3's last message
	ps[3].send(t, 0, 4)
	b := ps[0].waitCount(t, 1)
	if b[0].InGame != 0xf || b[0].Fabricated != 0 || b[0].Cmds[3].ForwardMove() != 4 {
		t.Fatalf("tic 0: %+v", b[0])
	}
	if time.Since(sent3) > cfg.Fabricate {
		t.Logf("slow loopback: tic 0 took %v", time.Since(sent3))
	}

	// A late player: fabricated after the grace time with the right masks.
	for i := 0; i < 3; i++ {
		ps[i].send(t, 1, 10)
	}
	b = ps[0].waitCount(t, 2)
	waited := ps[0].arrivedAt(1).Sub(sent3)
	if b[1].Fabricated != 0b1000 || b[1].InGame != 0xf || b[1].Cmds[3] != b[0].Cmds[3] || waited < cfg.Fabricate {
		t.Fatalf("tic 1 after %v: %+v", waited, b[1])
	}

	// Slot 3 stays silent: the others play on, one tic per sweep, until it
	// is dropped; then at full speed.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	pace := func(ps []*wdPlayer) {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			n := uint32(ps[0].count())
			for _, p := range ps {
				for t0 := n; t0 < n+4; t0++ {
					p.c.SendCmd(context.Background(), t0, wire.NewTicCmd(int8(t0%50), 1, 256, 0, 0, 0))
				}
			}
			time.Sleep(time.Second / 35)
		}
	}
	wg.Add(1)
	go pace(ps[:3])
	select {
	case err := <-ps[3].ended:
		if st := webdoomclient.CloseStatus(err); st != 1000 {
			t.Fatalf("silent player ended with %d: %v", st, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("silent player never dropped")
	}
	dropAt := ps[0].count()
	ps[0].waitCount(t, dropAt+20)
	close(stop)
	wg.Wait()
	// From here on slots 0-2 are never silent for Drop: a loaded machine
	// stalled the steps below past it, and they were dropped.
	stopAlive := wdKeepAlive(ps[:3]...)
	defer stopAlive()
	// After the drop slot 3 is out and fabricated. A player's own cmd is
	// used whenever it arrived in time; a loaded machine can stall the
	// pacer past Fabricate, and then the server rightly fabricates that
	// tic for the players too, so only a played tic's cmds are checked,
	// and at least one tic must have been played by all three.
	all := ps[0].snapshot()
	played := 0
	for _, b := range all[dropAt+1:] {
		if b.InGame != 0b0111 || b.Fabricated&0b1000 == 0 {
			t.Fatalf("after the drop, tic %d: in %04b fab %04b", b.Tic, b.InGame, b.Fabricated)
		}
		for i := range 3 {
			if b.Fabricated&(1<<i) == 0 && b.Cmds[i].ForwardMove() != int8(b.Tic%50) {
				t.Fatalf("after the drop, tic %d slot %d: cmd %+v is not the one sent", b.Tic, i, b.Cmds[i])
			}
		}
		if b.Fabricated&0b0111 == 0 {
			played++
		}
	}
	if played == 0 {
		t.Fatalf("after the drop no tic was played by slots 0-2 (%d tics)", len(all)-dropAt-1)
	}
	t.Logf("after the drop: %d of %d tics played by all three", played, len(all)-dropAt-1)
	if srv.Stats().Drops[DropSilent] != 1 {
		t.Fatalf("drops: %v", srv.Stats().Drops)
	}

	// Drop-in through the lobby: inprogress, join, launch with the frontier.
	obs := wdDial(t, base, "/ws/lobby")
	ip := wdUntil(t, obs, "inprogress")
	if fmt.Sprint(ip["freeSlots"]) != "[3]" || len(ip["players"].([]any)) != 3 {
		t.Fatalf("inprogress %v", ip)
	}
	obs.SendJSON(wdCtx(t, time.Second), `{"t":"join","name":"Eve"}`)
	if w := wdUntil(t, obs, "welcome"); w["slot"] != 3.0 {
		t.Fatalf("join welcome %v", w)
	}
	jl := wdUntil(t, obs, "launch")
	if jl["join"] != true || fmt.Sprint(jl["names"]) != "[Alice Bob Brown Eve]" {
		t.Fatalf("join launch %v", jl)
	}
	if f := uint32(jl["frontier"].(float64)); f < uint32(len(all)) {
		t.Fatalf("join frontier %d, but %d tics were sealed", f, len(all))
	}
	// Let every sealed bundle arrive, then connect the drop-in and a spectator.
	frontier := wdSettled(t, srv, ps[0])
	spec := wdPlay(t, base, "/ws/spectate")
	ps[3] = wdPlay(t, base, "/ws/game?slot=3")
	hist := ps[3].waitCount(t, int(frontier))
	spec.waitCount(t, int(frontier))
	// Its first cmd schedules it to go live 12 tics after the next tic.
	first := uint32(ps[0].count())
	ps[3].send(t, first, 5)
	var joinAt, next uint32
	for deadline := time.Now().Add(5 * time.Second); joinAt == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("drop-in never scheduled")
		}
		srv.query(func(c *Core) {
			if p := &c.session.players[3]; p.joinAtSet {
				joinAt, next = p.joinAt, c.session.next
			}
		})
	}
	stopAlive3 := wdKeepAlive(ps[3])
	defer stopAlive3()
	// The server's next tic, not ps[0]'s count: bundles may still be on
	// their way to a client that a loaded machine has not scheduled.
	if joinAt < first+12 || joinAt > next+12+1 {
		t.Fatalf("drop-in scheduled for tic %d; first cmd sent at %d", joinAt, first)
	}
	end := joinAt + 40
	for i := uint32(ps[0].count()); i < end; i++ {
		for _, p := range ps {
			p.send(t, i, 5)
		}
	}
	ps[0].waitCount(t, int(end))
	// The spectator tries to play: nothing it sends has any effect.
	spec.c.SendCmd(wdCtx(t, time.Second), end, wire.NewTicCmd(99, 99, 99, 0, 0, 0))
	spec.c.SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	for i := end; i < end+20; i++ {
		for _, p := range ps {
			p.send(t, i, 6)
		}
	}
	want := int(end) + 20
	ref := ps[0].waitCount(t, want)
	for _, b := range ref {
		on := b.InGame&0b1000 != 0
		if b.Tic >= frontier && on != (b.Tic >= joinAt) {
			t.Fatalf("drop-in: tic %d in-game %v (scheduled for %d)", b.Tic, on, joinAt)
		}
		for _, c := range b.Cmds {
			if c.ForwardMove() == 99 {
				t.Fatalf("spectator's cmd reached tic %d", b.Tic)
			}
		}
	}
	if len(hist) < int(frontier) {
		t.Fatal("short history")
	}

	// Determinism: every client's toy simulation agrees on every tic.
	refHash := wdHashes(ref[:want])
	for i, p := range []*wdPlayer{ps[1], ps[2], ps[3], spec} {
		h := wdHashes(p.waitCount(t, want)[:want])
		for tic := range refHash {
			if h[tic] != refHash[tic] {
				t.Fatalf("client %d: hash differs at tic %d", i+1, tic)
			}
		}
	}

	// Session end: everyone leaves; spectator closed, lobby reopens.
	stopAlive()
	for _, p := range ps[:3] {
		p.c.Close()
	}
	if srv.Status().Session != true {
		t.Fatal("session ended while slot 3 plays")
	}
	stopAlive3()
	ps[3].c.Close()
	select {
	case err := <-spec.ended:
		if st := webdoomclient.CloseStatus(err); st != 1000 {
			t.Fatalf("spectator ended with %d", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("spectator not closed at session end")
	}
	for {
		if r := wdUntil(t, lobby[0], "roster"); r["inGame"] == false {
			break
		}
	}
	obs.SendJSON(wdCtx(t, time.Second), `{"t":"join"}`)
	if m := wdUntil(t, obs, "full"); m["reason"] != "game over" {
		t.Fatalf("after the game: %v", m)
	}
	wdRefused(t, wdDial(t, base, "/ws/spectate"), "spectator with no session")
}

func TestHarnessNeverConnected(t *testing.T) {
	cfg := wdHarnessConfig()
	srv, base := startWebDoom(t, cfg)
	a, b := wdDial(t, base, "/ws/lobby"), wdDial(t, base, "/ws/lobby")
	wdUntil(t, b, "welcome")
	a.SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	wdUntil(t, a, "launch")
	launched := time.Now()
	p := wdPlay(t, base, "/ws/game?slot=0")
	p.send(t, 0, 1)
	bs := p.waitCount(t, 1)
	if wait := time.Since(launched); wait < cfg.NeverJoined/2 {
		t.Fatalf("sealed %v after launch, before slot 1 was given up", wait)
	}
	if bs[0].InGame != 0b0001 || bs[0].Fabricated != 0b1110 {
		t.Fatalf("tic 0: %+v", bs[0])
	}
	if srv.Stats().Drops[DropNeverJoined] != 1 {
		t.Fatalf("drops %v", srv.Stats().Drops)
	}
}

func TestHarnessMalformed(t *testing.T) {
	cfg := wdHarnessConfig()
	cfg.MaxConns = 8
	cfg.RateCap = 50
	cfg.RateWindow = time.Hour      // the window cannot roll over mid-test: 60 in a row is always over
	cfg.Fabricate = 5 * time.Second // nothing here may be sealed by the sweep
	cfg.Drop = 10 * time.Second     // nor anyone dropped for silence
	srv, base := startWebDoom(t, cfg)
	wdRefused(t, wdDial(t, base, "/ws/game?slot=0"), "game socket with no session")
	l := wdDial(t, base, "/ws/lobby")
	wdUntil(t, l, "welcome")
	l.SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	wdUntil(t, l, "launch")
	for _, q := range []string{"slot=4", "slot=-1", "slot=abc", "slot=1.5", "slot=1e9"} {
		wdRefused(t, wdDial(t, base, "/ws/game?"+q), q)
	}
	p := wdPlay(t, base, "/ws/game?slot=0")
	for connected := false; !connected; time.Sleep(time.Millisecond) {
		srv.query(func(c *Core) { connected = c.session.players[0].conn != 0 })
	}
	wdRefused(t, wdDial(t, base, "/ws/game?slot=0"), "duplicate slot")
	// Wrong sizes and out-of-window tics are ignored; the socket stays.
	ctx := wdCtx(t, time.Second)
	p.c.SendBinary(ctx, make([]byte, 11))
	p.c.SendBinary(ctx, make([]byte, 13))
	p.send(t, 513, 1)
	// One socket's messages reach the core in order: when the good cmd of
	// tic 0 has sealed, the bad ones before it were handled, and had any
	// been taken (a 13-byte one read as tic 0's cmd, tic 513 kept) it
	// shows here, without sleeping for silence.
	p.send(t, 0, 1)
	if b := p.waitCount(t, 1); b[0].Tic != 0 || b[0].Cmds[0].ForwardMove() != 1 {
		t.Fatalf("bad cmds: tic 0 is %+v", b[0])
	}
	var kept bool
	srv.query(func(c *Core) { _, kept = c.session.players[0].cmd(513) })
	if kept {
		t.Fatal("bad cmds: the out-of-window cmd of tic 513 was kept")
	}
	p.send(t, 0, 2) // already sealed
	p.send(t, 1, 3)
	if b := p.waitCount(t, 2); b[1].Cmds[0].ForwardMove() != 3 {
		t.Fatalf("tic 1: %+v", b[1])
	}
	// Oversize messages close the socket (1009), on every endpoint.
	big := wdDial(t, base, "/ws/lobby")
	wdUntil(t, big, "inprogress")
	big.SendJSON(ctx, `{"t":"ping","t0":"`+strings.Repeat("x", 1100)+`"}`)
	wdClosedWith(t, big, 1009, "oversize lobby message")
	sp := wdDial(t, base, "/ws/spectate")
	sp.SendBinary(ctx, make([]byte, 65))
	wdClosedWith(t, sp, 1009, "oversize spectator message")
	g := wdPlay(t, base, "/ws/game?slot=2")
	g.c.SendBinary(ctx, make([]byte, 65))
	select {
	case err := <-g.ended:
		if webdoomclient.CloseStatus(err) != 1009 {
			t.Fatalf("oversize game message: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("oversize game message kept the socket")
	}
	// Rate cap: past 50 messages in a window the socket is terminated.
	r := wdDial(t, base, "/ws/lobby")
	wdUntil(t, r, "inprogress")
	for i := 0; i < 60; i++ {
		if r.SendJSON(ctx, `{"t":"ping"}`) != nil {
			break
		}
	}
	wdRefused(t, r, "rate cap")
	// Connection cap: 8 open sockets, the ninth is terminated. Only the
	// lobby socket l and player p are open once the server has let go of
	// the refused and closed ones above.
	wdConnsSettle(t, srv, 2)
	for range cfg.MaxConns - 2 {
		wdUntil(t, wdDial(t, base, "/ws/lobby"), "inprogress")
	}
	if n := srv.Status().Conns; n != cfg.MaxConns {
		t.Fatalf("%d connections open", n)
	}
	wdRefused(t, wdDial(t, base, "/ws/lobby"), "connection cap")
	// An unknown upgrade path gets no answer at all.
	if c, err := webdoomclient.Dial(wdCtx(t, 2*time.Second), base, "/ws/other"); err == nil {
		c.CloseNow()
		t.Fatal("unknown path upgraded")
	}
	ref := srv.Stats().Refusals
	for _, r := range []string{RefuseBadSlot, RefuseSlotTaken, RefuseNoSession, RefuseRateCap, RefuseConnCap, RefuseBadPath} {
		if ref[r] == 0 {
			t.Errorf("no %q refusal counted: %v", r, ref)
		}
	}
	if srv.Stats().Drops[DropOversize] != 3 {
		t.Errorf("oversize drops: %v", srv.Stats().Drops)
	}
}

// wdConnsSettle waits (up to 5 s) until the server counts n open sockets.
func wdConnsSettle(t *testing.T, srv *Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); srv.Status().Conns != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("server counts %d open sockets, want %d", srv.Status().Conns, n)
		}
	}
}
