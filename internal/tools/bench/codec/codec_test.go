package codec

import (
	"context"
	"github.com/rewindnet/rewind/internal/tools/doomdemo"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunMixedDemos measures demos of 1 to 4 players: every player-tick
// counted, the round trips exact, the coding smaller than the varint
// baseline, the link model's selective policy sending less than resending
// everything.
func TestRunMixedDemos(t *testing.T) {
	dir := t.TempDir()
	total := 0
	for i, p := range []int{2, 1, 4, 3, 1} {
		tics := 40 + 13*i
		total += p * tics
		name := filepath.Join(dir, "demo"+string(rune('a'+i))+".lmp")
		if err := os.WriteFile(name, doomdemo.Synthetic(p, tics, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Run(context.Background(), Config{Dir: dir, MinTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Demos != 5 || r.PlayerTicks != total || r.RoundTrip != nil || r.RoundTripYaw != nil {
		t.Fatalf("demos %d, player-ticks %d (want %d), round trips %v, %v", r.Demos, r.PlayerTicks, total, r.RoundTrip, r.RoundTripYaw)
	}
	if r.InputBytes <= 0 || r.InputBytes >= r.Baseline || r.InputBytesYaw <= r.InputBytes {
		t.Errorf("input bytes %.3f (with yaw %.3f), baseline %.3f", r.InputBytes, r.InputBytesYaw, r.Baseline)
	}
	if r.TickBytes <= 0 || r.Encode <= 0 || r.Decode <= 0 || r.All.Down <= r.Selective.Down || r.All.Up <= 0 {
		t.Errorf("result %+v", r)
	}
	if kv := r.Pairs(); len(kv) != 34 || kv[0] != "demos" || kv[14] != "roundtrip_exact" || kv[15] != true || kv[16] != "tick_bytes_per_client_4p" {
		t.Errorf("pairs %v", kv)
	}
}

// TestRunBadFile: a demo that does not parse is an error naming it.
func TestRunBadFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.lmp"), doomdemo.Synthetic(1, 10, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.lmp"), []byte{109, 1, 2}, 0o644)
	if _, err := Run(context.Background(), Config{Dir: dir}); err == nil || !strings.Contains(err.Error(), "bad.lmp") {
		t.Fatalf("err = %v, want one naming bad.lmp", err)
	}
}
