package match

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/rewindnet/rewind/games/all"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestRun plays a short lossy sand match: every client verified every
// tick, all equal to the server's.
func TestRun(t *testing.T) {
	res, err := Run(context.Background(), Config{Game: "sand", Grid: 48, Players: 3, Duration: 2 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Duplicate: 0.02, Reorder: 0.02},
		Blackout: 300 * time.Millisecond, Seed: 3, Stall: server.Stall{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.VerifiedEqual || res.Ticks != 120 || res.Desyncs != 0 || res.FullyVerified != 3 || res.MinVerified != 120 {
		t.Errorf("verified_equal %v, %d ticks, %d desyncs, %d fully verified, fewest %d", res.VerifiedEqual, res.Ticks, res.Desyncs, res.FullyVerified, res.MinVerified)
	}
	if k := res.Kinds[0]; k.Clients != 3 || k.Bytes == 0 || res.Kinds[1].Clients != 0 {
		t.Errorf("kinds %+v", res.Kinds)
	}
}

// TestRunPartlyVerified: a player blacked out for longer than the
// server's player timeout is dropped, having verified only the ticks
// before its blackout (which starts a third of the way in, at tick 160).
// Every tick verified still hashed equal, and the log says that one
// client verified only part of the match.
func TestRunPartlyVerified(t *testing.T) {
	var log bytes.Buffer
	res, err := Run(context.Background(), Config{Game: "sand", Grid: 32, Players: 3, Duration: 8 * time.Second, Blackout: 6 * time.Second, Seed: 1, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !res.VerifiedEqual || res.Ticks != 480 || res.Dropped != 1 || res.FullyVerified != 2 || res.MinVerified < 100 || res.MinVerified > 170 {
		t.Fatalf("verified_equal %v, %d ticks, %d dropped, %d fully verified, fewest %d", res.VerifiedEqual, res.Ticks, res.Dropped, res.FullyVerified, res.MinVerified)
	}
	if !strings.Contains(log.String(), "verified only part of the match") {
		t.Errorf("no word of the partly verified client in the log:\n%s", log.String())
	}
}

// TestRunLockstep: lockstep clients are counted apart from the predicting
// ones, with a larger input-to-screen latency.
func TestRunLockstep(t *testing.T) {
	res, err := Run(context.Background(), Config{Game: "walkers", Players: 4, Lockstep: 2, Duration: 2 * time.Second, Seed: 2,
		Link: transport.LinkConfig{Latency: 20 * time.Millisecond}})
	var f bench.Failure
	if err != nil && !errors.As(err, &f) {
		t.Fatal(err)
	}
	ls, rb := res.Kinds[1], res.Kinds[0]
	if ls.Clients != 2 || rb.Clients != 2 || ls.Samples == 0 || rb.Samples == 0 {
		t.Fatalf("kinds %+v", res.Kinds)
	}
	if float64(ls.Latency)/float64(ls.Samples) <= float64(rb.Latency)/float64(rb.Samples) {
		t.Errorf("lockstep latency %d/%d not above rollback's %d/%d", ls.Latency, ls.Samples, rb.Latency, rb.Samples)
	}
	if err != nil || res.ShownMismatches != 0 {
		t.Errorf("err %v, %d shown mismatches", err, res.ShownMismatches)
	}
}

// TestRunShips plays a short lossy 8-player ships match: every client
// verified every tick, all equal to the server's, and bytes flowed.
func TestRunShips(t *testing.T) {
	res, err := Run(context.Background(), Config{Game: "ships", Players: 8, Duration: 2 * time.Second,
		Link: transport.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !res.VerifiedEqual || res.Ticks != 120 || res.Desyncs != 0 || res.FullyVerified != 8 || res.Kinds[0].Bytes == 0 {
		t.Errorf("verified_equal %v, %d ticks, %d desyncs, %d fully verified, %d bytes", res.VerifiedEqual, res.Ticks, res.Desyncs, res.FullyVerified, res.Kinds[0].Bytes)
	}
}
