package seat

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestSpectatorSeat: a spectator's seat (Config.Spectate, Delay 500 ms)
// beside one playing bot, in made-up time over the network simulator.
// It takes no player slot (player=-, state=spectating, the server counts
// one player and one spectator), what the view would feed it as input
// changes nothing (SetInput does nothing; the server drops nothing from
// it either), it shows tick T no earlier than the delay after the server
// ran T, and at Until its status and final line hold the server's hash
// of that tick.
func TestSpectatorSeat(t *testing.T) {
	const until = 240
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(7, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond})
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	now := start
	hashes := map[uint32]uint64{}
	ranAt := map[uint32]time.Time{}
	srv, err := server.New[sand.Input](sand.New(32), sconn, server.Config{StartPlayers: 1,
		OnTick: func(tick uint32, _ *world.World, h uint64) { hashes[tick], ranAt[tick] = h, now }})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(name string) transport.Conn {
		c, err := net.Dial(name, "server")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	const delay = 500 * time.Millisecond
	p, err := NewPlayer(Config{Room: "K3F9QX", Side: 32, Until: until, Spectate: true, Delay: delay},
		func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
			return rewind.Connect(g, dial("spectator"), opts)
		})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Spectating() || p.Delay() != delay {
		t.Fatalf("Spectating %v, Delay %v", p.Spectating(), p.Delay())
	}
	bot, err := rewind.Connect[sand.Input](sand.New(32), dial("bot"), rewind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	bot.SetInput(sand.Input{MoveX: 1, Pour: true, Material: sand.Water})
	var shown uint32
	for i := 0; i < 20000 && !p.Done(); i++ {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := srv.Update(now); err != nil {
			t.Fatal(err)
		}
		if err := bot.Update(now); err != nil {
			t.Fatalf("bot: %v", err)
		}
		p.SetInput(sand.Input{MoveY: 1, Pour: true, Material: sand.Wall}) // the keys a view reads
		p.Tick(now)
		if v := p.Stats().Verified; v > shown {
			shown = v
			if ran, ok := ranAt[v]; !ok || now.Sub(ran) < delay {
				t.Fatalf("tick %d shown at %v, %v after the server ran it (ran: %v); want at least %v", v, now, now.Sub(ran), ok, delay)
			}
		}
		if st := kv(p.Status()); shown > 0 && !p.Done() && (st["state"] != "spectating" || st["player"] != "-") {
			t.Fatalf("spectator's status %q", p.Status())
		}
	}
	if !p.Done() || p.Err() != nil {
		t.Fatalf("done %v, err %v, status %q", p.Done(), p.Err(), p.Status())
	}
	st, fl := kv(p.Status()), kv(p.FinalLine())
	want := fmt.Sprintf("%016x", hashes[until])
	if st["verified_tick"] != fmt.Sprint(until) || st["verified_hash"] != want || st["state"] != "done" || st["player"] != "-" ||
		fl["verified_hash"] != want || fl["rollbacks"] != "0" {
		t.Errorf("status %q, final line %q; the server's hash of tick %d %s", p.Status(), p.FinalLine(), until, want)
	}
	sst := srv.Stats()
	if sst.Players != 1 || sst.Spectators != 1 || sst.SpectatorDropped != 0 {
		t.Errorf("server: %d players, %d spectators, %d dropped from spectators", sst.Players, sst.Spectators, sst.SpectatorDropped)
	}
}
