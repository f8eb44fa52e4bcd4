package privatesim

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestCardsNothingHiddenLeaks is the capture test of docs/scenes.md: a
// 4-player cards match of 2,000 ticks at 10 % loss with every datagram the
// server sends searched for every card a player may not know (the deck,
// the hole card, the others' hands) and the dealer's generator state, as
// is every client's world every 10 ms. Nothing may be found, and every
// client's verified hash must be the server's hash of that client's view
// on every verified tick; the repairs hidden reads caused are reported.
// Every tick body each player is sent is also decoded as a modified
// client would: no other player's private note (cards.Input.Note) may
// show, while each player's own note comes back to it through its hand.
func TestCardsNothingHiddenLeaks(t *testing.T) {
	testutil.CheckGoroutines(t, time.Second)
	r, err := Run(Config{Players: 4, Ticks: 2000, Loss: 0.1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	if r.LeakedBytes != 0 {
		t.Errorf("%d bytes of hidden values found (%d in datagrams, %d in worlds)", r.LeakedBytes, r.LeakedDatagram, r.LeakedWorld)
	}
	if !r.VerifiedEqual() || r.VerifiedTicks < 4*2000-8 {
		t.Errorf("%d verified client-ticks, %d unequal to the server's view", r.VerifiedTicks, r.Unequal)
	}
	if r.Secrets < 100 || r.Repairs == 0 || r.Swaps == 0 {
		t.Errorf("the match did not exercise what it tests: %d secrets, %d repairs, %d swaps", r.Secrets, r.Repairs, r.Swaps)
	}
	if !r.HandsMatch {
		t.Error("a client's verified world does not show it the server's cards and its own note")
	}
	if r.PrivateInputsSeen != 0 || r.RelayedTicks < 4*2000 {
		t.Errorf("decoding the %d tick bodies sent, a modified client saw %d private inputs of others", r.RelayedTicks, r.PrivateInputsSeen)
	}
}

// TestLeakSearchFindsSecrets plays the same game with everything public:
// the search must find the secrets it is sent (else a zero above would
// prove nothing).
func TestLeakSearchFindsSecrets(t *testing.T) {
	r, err := Run(Config{Players: 3, Ticks: 400, Seed: 3, Public: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.LeakedWorld == 0 || r.LeakedDatagram == 0 {
		t.Fatalf("everything public, yet the search found %d bytes in worlds and %d in datagrams", r.LeakedWorld, r.LeakedDatagram)
	}
}

// TestHandChangesViewers checks a change of a scene's viewers in mid-match
// (cards.Swap: two players exchange hands): the new holder's client gets
// the hand's pages and shows its cards at the last tick, the old one's
// gets none of the cards that enter the hand after (the leak search),
// and every verified hash stays equal.
func TestHandChangesViewers(t *testing.T) {
	r, err := Run(Config{Players: 2, Ticks: 900, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if r.Swaps < 4 {
		t.Fatalf("%d viewer changes in the match", r.Swaps)
	}
	if r.LeakedBytes != 0 || !r.VerifiedEqual() || !r.HandsMatch {
		t.Fatalf("after %d swaps: leaked %d bytes, verified equal %v, hands match %v", r.Swaps, r.LeakedBytes, r.VerifiedEqual(), r.HandsMatch)
	}
}

// TestSpectatorSeesPublicScene adds a spectator to a 3-player cards match
// at 10 % loss: it is admitted, every tick it verifies hashes as the
// server's public scene (world.ViewHash of the public view alone), and
// nothing hidden from it — every card but the table's, the generator's
// words, the private notes — is found in any datagram the server sent it
// or in its world; its tick bodies, decoded, show no private input. It
// mispredicts where Step reads the deck, so it is repaired, from the
// public scene. A spectator 500 ms behind that comes at tick 300 starts
// from the history (page hashes of the public scene at an older tick) and
// must do as well.
func TestSpectatorSeesPublicScene(t *testing.T) {
	testutil.CheckGoroutines(t, time.Second)
	const ticks = 1000
	for _, delay := range []time.Duration{0, 500 * time.Millisecond} {
		from := uint32(0)
		if delay > 0 {
			from = 300
		}
		r, err := Run(Config{Players: 3, Ticks: ticks, Loss: 0.1, Seed: 5, Spectator: true, SpectatorDelay: delay, SpectatorFrom: from})
		if err != nil {
			t.Fatalf("delay %v: %v", delay, err)
		}
		t.Logf("delay %v: spectator verified=%d unequal=%d leaked=%d private_inputs=%d relayed=%d repairs=%d bytes=%d; %v", delay,
			r.SpectatorVerified, r.SpectatorUnequal, r.SpectatorLeaked, r.SpectatorPrivateInputs, r.SpectatorRelayed, r.SpectatorRepairs, r.SpectatorBytes, r)
		if r.SpectatorVerified < int(ticks-from)-100 || r.SpectatorUnequal != 0 {
			t.Errorf("delay %v: the spectator verified %d ticks, %d unequal to the server's public scene", delay, r.SpectatorVerified, r.SpectatorUnequal)
		}
		if r.SpectatorLeaked != 0 {
			t.Errorf("delay %v: %d bytes of hidden values reached the spectator", delay, r.SpectatorLeaked)
		}
		if r.SpectatorRepairs == 0 {
			t.Errorf("delay %v: the spectator was never repaired: the match did not exercise its view", delay)
		}
		if delay == 0 && (r.SpectatorRelayed < ticks || r.SpectatorPrivateInputs != 0) {
			t.Errorf("decoding the spectator's %d tick bodies showed %d private inputs", r.SpectatorRelayed, r.SpectatorPrivateInputs)
		}
		if r.LeakedBytes != 0 || !r.VerifiedEqual() || r.Secrets < 50 {
			t.Errorf("delay %v: the players: leaked %d bytes, verified equal %v, %d secrets", delay, r.LeakedBytes, r.VerifiedEqual(), r.Secrets)
		}
	}
}

// TestSpectatorLeakSearchFindsSecrets watches the everything-public game:
// the spectator's search must find the hands and the deck it is sent.
func TestSpectatorLeakSearchFindsSecrets(t *testing.T) {
	r, err := Run(Config{Players: 2, Ticks: 300, Seed: 3, Public: true, Spectator: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.SpectatorLeaked == 0 {
		t.Fatal("everything public, yet the spectator's search found nothing")
	}
}
