package private

import (
	"context"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/tools/privatesim"
)

// TestRun plays a short cards match: nothing leaked, every verified hash
// equal, repairs counted, and the public game's leaks found (the search
// finds what it is sent).
func TestRun(t *testing.T) {
	r, err := Run(context.Background(), Config{Config: privatesim.Config{Players: 3, Ticks: 300, Loss: 0.1,
		Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Private
	if p.LeakedBytes != 0 || !p.VerifiedEqual() || p.Repairs == 0 || p.BytesPerClientPerSecond() <= 0 || r.Public.LeakedBytes == 0 {
		t.Fatalf("leaked %d, verified equal %v, repairs %d, %.0f B/s; public leaked %d",
			p.LeakedBytes, p.VerifiedEqual(), p.Repairs, p.BytesPerClientPerSecond(), r.Public.LeakedBytes)
	}
	if kv := r.Pairs(); len(kv) != 34 || kv[0] != "players" || kv[1] != 3 {
		t.Errorf("pairs %v", kv)
	}
}
