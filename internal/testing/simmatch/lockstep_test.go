package simmatch

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// checkLockstep asserts what a lockstep client must show: every world it
// showed was the verified one and equal to the server's of that tick, it
// showed ticks at all, and it never rolled back.
func checkLockstep(t *testing.T, res Result, lockstep map[int]bool) {
	t.Helper()
	if res.ShownTicks == 0 || res.ShownMismatches != 0 || res.ShownUnverified != 0 {
		t.Errorf("lockstep clients showed %d ticks: %d differed from the server's, %d were not verified",
			res.ShownTicks, res.ShownMismatches, res.ShownUnverified)
	}
	for i, st := range res.Clients {
		if lockstep[i] && (st.Rollbacks != 0 || st.Predicted != st.Verified) {
			t.Errorf("lockstep client %d: %d rollbacks, predicted %d, verified %d", i, st.Rollbacks, st.Predicted, st.Verified)
		}
	}
}

// TestLockstepMatrix: 4 lockstep players at 0, 5 and 20 % loss and 50 and
// 150 ms one way (± 30 ms): every world a client shows equals the
// server's at that tick, every tick is verified, no rollback ever.
func TestLockstepMatrix(t *testing.T) {
	all := map[int]bool{0: true, 1: true, 2: true, 3: true}
	for _, loss := range []float64{0, 0.05, 0.2} {
		for _, lat := range []time.Duration{50 * time.Millisecond, 150 * time.Millisecond} {
			t.Run(fmt.Sprintf("loss=%g/latency=%v", loss, lat), func(t *testing.T) {
				res := playChecked(t, Config[testgame.Input]{
					Players:  4,
					NewGame:  newTestGame,
					Bot:      testgame.Bot,
					Duration: 3 * time.Second,
					Link:     transport.LinkConfig{Latency: lat, Jitter: 30 * time.Millisecond, Loss: loss},
					Seed:     int64(loss*100) + int64(lat/time.Millisecond),
					Lockstep: all,
				})
				checkLockstep(t, res, all)
				if res.Rollbacks != 0 {
					t.Errorf("%d rollbacks", res.Rollbacks)
				}
			})
		}
	}
}

// TestLockstepMixed: 2 lockstep and 2 predicting players in one match
// (150 ms ± 30 ms, 5 % loss): the lockstep ones show only the server's
// worlds and never roll back; every client verifies every tick equal to
// the server's.
func TestLockstepMixed(t *testing.T) {
	ls := map[int]bool{0: true, 2: true}
	res := playChecked(t, Config[testgame.Input]{
		Players:  4,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 4 * time.Second,
		Link:     transport.LinkConfig{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.05},
		Seed:     11,
		Lockstep: ls,
	})
	checkLockstep(t, res, ls)
	if res.Clients[1].Rollbacks+res.Clients[3].Rollbacks == 0 {
		t.Errorf("the predicting clients never rolled back at 150 ms: are they predicting?")
	}
	if res.Clients[1].Predicted <= res.Clients[1].Verified && res.Lead[1] <= 0 {
		t.Errorf("predicting client 1 never ran ahead (lead %.1f)", res.Lead[1])
	}
}
