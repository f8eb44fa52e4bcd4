package seat

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
)

// statusKeys are the keys the page's #status must hold (the command
// contract).
var statusKeys = []string{"room", "player", "tick", "verified_tick", "verified_hash", "rollbacks", "resyncs", "ping_ms"}

func kv(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		m[k] = v
	}
	return m
}

// TestPlayerUntil plays a single-player sand session in made-up time to
// Until: the player stops there, and its status and final line keep
// exactly that tick's verified hash, with every contract key.
func TestPlayerUntil(t *testing.T) {
	hashes := map[uint32]uint64{}
	p, err := NewPlayer(Config{Room: "K3F9QX", Side: 32, Until: 90}, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		on := opts.Client.OnVerified
		opts.Client.OnVerified = func(tick uint32, h uint64) { hashes[tick] = h; on(tick, h) }
		return rewind.Play(g, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	st := kv(p.Status())
	for _, k := range statusKeys {
		if _, ok := st[k]; !ok {
			t.Errorf("status before the first tick lacks %s: %q", k, p.Status())
		}
	}
	now := time.Unix(1000, 0)
	p.SetInput(sand.Input{MoveX: 1, Pour: true, Material: sand.Water})
	for i := 0; i < 60*10 && !p.Done(); i++ {
		p.Tick(now)
		now = now.Add(time.Second / 240)
	}
	if !p.Done() || p.Err() != nil {
		t.Fatalf("done %v, err %v, status %q", p.Done(), p.Err(), p.Status())
	}
	st = kv(p.Status())
	for _, k := range statusKeys {
		if _, ok := st[k]; !ok {
			t.Errorf("final status lacks %s: %q", k, p.Status())
		}
	}
	want := hashes[90]
	if st["verified_tick"] != "90" || st["verified_hash"] != fmt.Sprintf("%016x", want) || st["state"] != "done" || st["room"] != "K3F9QX" {
		t.Errorf("final status %q; tick 90's hash %016x", p.Status(), want)
	}
	if hashes[90] == hashes[30] {
		t.Error("the world did not change between ticks 30 and 90")
	}
	fl := kv(p.FinalLine())
	if fl["verified_tick"] != "90" || fl["verified_hash"] != st["verified_hash"] {
		t.Errorf("final line %q", p.FinalLine())
	}
	// Ticks after the stop change nothing.
	p.Tick(now.Add(time.Second))
	if kv(p.Status())["verified_tick"] != "90" {
		t.Errorf("status moved after the stop: %q", p.Status())
	}
}

// TestWaitingStatus has every contract key.
func TestWaitingStatus(t *testing.T) {
	st := kv(WaitingStatus("", "joining", 0))
	for _, k := range statusKeys {
		if _, ok := st[k]; !ok {
			t.Errorf("waiting status lacks %s", k)
		}
	}
	if st["state"] != "joining" || len(st["verified_hash"]) != 16 {
		t.Errorf("waiting status %v", st)
	}
}
