package seat

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// hostedMatch is a sand match in made-up time whose host plays in it (a
// tab that hosts a room: migrate.Serve) beside one more player.
type hostedMatch struct {
	net    *transport.SimNetwork
	now    time.Time
	host   *Player
	player *rewind.Session[sand.Input]
	left   bool // the player closed its session
}

func newHostedMatch(t testing.TB, side int, until uint32) *hostedMatch {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &hostedMatch{net: transport.NewSimNetwork(1, start), now: start}
	m.net.SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond})
	conn, _ := m.net.Listen("host")
	var err error
	m.host, err = NewPlayer(Config{Room: "K3F9QX", Side: side, Until: until}, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		return serveAndPlay(g, conn, server.Config{HostMigration: true, Room: server.Room{Code: "K3F9QX", Key: "00112233445566778899aabbccddeeff"}}, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	pconn, _ := m.net.Dial("player", "host")
	if m.player, err = rewind.Connect[sand.Input](sand.New(side), pconn, rewind.Options{}); err != nil {
		t.Fatal(err)
	}
	m.player.Migration().Own()
	m.host.SetInput(sand.Input{MoveX: 1, Pour: true, Material: sand.Sand})
	m.player.SetInput(sand.Input{MoveY: 1, Pour: true, Material: sand.Water})
	return m
}

// step runs one millisecond of the match.
func (m *hostedMatch) step(t testing.TB) {
	m.now = m.now.Add(time.Millisecond)
	m.net.Advance(m.now)
	m.host.Tick(m.now)
	if m.left {
		return
	}
	if err := m.player.Update(m.now); err != nil {
		t.Fatal(err)
	}
}

// TestHostingPlayerServesOn: a seat that hosts the match stops at Until
// as every seat does (done, Until's hash in its status, hosting=true),
// but serves on while another player is in the match (Serving), and
// closes once that player left.
func TestHostingPlayerServesOn(t *testing.T) {
	m := newHostedMatch(t, 32, 120)
	for !m.host.Done() {
		m.step(t)
	}
	if !m.host.Serving() || m.host.Err() != nil {
		t.Fatalf("the host at Until: serving %v, err %v", m.host.Serving(), m.host.Err())
	}
	if st := kv(m.host.Status()); st["state"] != "done" || st["hosting"] != "true" || st["verified_tick"] != "120" {
		t.Fatalf("the host's status at Until: %v", st)
	}
	at := m.player.Stats().Verified
	for range 2000 {
		m.step(t)
	}
	if v := m.player.Stats().Verified; v < at+100 {
		t.Fatalf("the player verified tick %d, %d when the host reached Until: the host did not serve on", v, at)
	}
	if kv(m.host.Status())["verified_tick"] != "120" {
		t.Errorf("the host's status moved past Until: %s", m.host.Status())
	}
	if err := m.player.Close(); err != nil {
		t.Fatal(err)
	}
	m.left = true
	for i := 0; m.host.Serving(); i++ {
		if i > 10000 {
			t.Fatal("the host still serves 10 s after the last player left")
		}
		m.step(t)
	}
}

// BenchmarkServerTick: the CPU time per tick of the server of a
// 256×256 sand match in made-up time (the match a tab hosts runs this
// server in its Worker: migrate.Serve) with three players who pour,
// its Update alone: natively on Linux the thread's CPU time (the
// goroutine locked to its thread), in js/wasm the wall time
// (docs/benchmarks.md).
func BenchmarkServerTick(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond})
	conn, _ := net.Listen("host")
	srv, err := server.New[sand.Input](sand.New(256), conn, server.Config{HostMigration: true,
		Room: server.Room{Code: "K3F9QX", Key: "00112233445566778899aabbccddeeff"}})
	if err != nil {
		b.Fatal(err)
	}
	var players []*rewind.Session[sand.Input]
	for i, in := range []sand.Input{{MoveX: 1, Pour: true, Material: sand.Sand}, {MoveY: 1, Pour: true, Material: sand.Water},
		{MoveX: -1, Pour: true, Material: sand.Sand}} {
		pconn, _ := net.Dial(fmt.Sprint("p", i), "host")
		p, err := rewind.Connect[sand.Input](sand.New(256), pconn, rewind.Options{})
		if err != nil {
			b.Fatal(err)
		}
		p.SetInput(in)
		players = append(players, p)
	}
	now := start
	var spent time.Duration
	step := func(measure bool) {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		t0 := cpuNow()
		if err := srv.Update(now); err != nil {
			b.Fatal(err)
		}
		if measure {
			spent += cpuNow() - t0
		}
		for _, p := range players {
			if err := p.Update(now); err != nil {
				b.Fatal(err)
			}
		}
	}
	for range 10000 { // 10 s of play: the grid fills up
		step(false)
	}
	b.ResetTimer()
	for range b.N {
		for range 16 { // about a tick at 60 Hz, in 1 ms steps
			step(true)
		}
	}
	ticks := float64(b.N) * 16 / 1000 * 60
	b.ReportMetric(float64(spent.Microseconds())/ticks, "server-µs/tick")
	b.Logf("%s; server at tick %d", cpuClock, srv.Stats().Tick)
}

// TestSeatRebasedPastUntil: a seat whose session is not run for longer
// than its server keeps ticks (a tab's Worker starved) is rebased to the
// world of a tick past its Until: it stops there without an error, done,
// its status naming the tick it has and that tick's hash.
func TestSeatRebasedPastUntil(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond})
	conn, _ := net.Listen("host")
	host, err := NewPlayer(Config{Room: "K3F9QX", Side: 32}, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		return serveAndPlay(g, conn, server.Config{History: 500 * time.Millisecond}, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	const until = 120
	pconn, _ := net.Dial("player", "host")
	p, err := NewPlayer(Config{Room: "K3F9QX", Side: 32, Until: until}, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		return rewind.Connect(g, pconn, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetInput(sand.Input{MoveY: 1, Pour: true, Material: sand.Water})
	now := start
	step := func(player bool) {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		host.Tick(now)
		if player {
			p.Tick(now)
		}
	}
	for i := 0; p.Stats().Verified < until-30; i++ {
		if i > 10000 {
			t.Fatalf("the player has not verified tick %d in 10 s: %s", until-30, p.Status())
		}
		step(true)
	}
	for range 1500 { // the player starved 1.5 s: the host runs 90 ticks past its History
		step(false)
	}
	for i := 0; !p.Done(); i++ {
		if i > 10000 {
			t.Fatalf("the player is not done 10 s after it starved: %s", p.Status())
		}
		step(true)
	}
	st := kv(p.Status())
	if p.Err() != nil || st["state"] != "done" {
		t.Fatalf("the rebased player: err %v, status %v", p.Err(), st)
	}
	if p.Stats().Rebases == 0 {
		t.Fatalf("the player was not rebased: %v", st)
	}
	v := p.Stats().Verified
	if st["verified_tick"] != fmt.Sprint(v) || v <= until || st["verified_hash"] != fmt.Sprintf("%016x", p.Stats().VerifiedHash) {
		t.Errorf("the rebased player's status %v; its verified tick %d, hash %016x", st, v, p.Stats().VerifiedHash)
	}
}

// serveAndPlay starts a session of g that hosts the match over conn and
// plays in it (migrate.Serve, rewind.Connect, Migration().Serve), as a
// hosting tab's Worker does.
func serveAndPlay(g rewind.Game[sand.Input], conn transport.Conn, cfg server.Config, opts rewind.Options) (*rewind.Session[sand.Input], error) {
	m, err := migrate.Serve(g, conn, cfg)
	if err != nil {
		return nil, err
	}
	s, err := rewind.Connect(g, m.Conn, opts)
	if err != nil {
		m.Close()
		return nil, err
	}
	s.Migration().Serve(m)
	return s, nil
}
