package simmatch

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// handoverRig is a server with HostMigration and n clients over a lossy
// simulated network, stepped a millisecond at a time in made-up time.
type handoverRig struct {
	t       *testing.T
	net     *transport.SimNetwork
	sconn   *transport.SimConn
	srv     *server.Server[testgame.Input]
	clients []*client.Client[testgame.Input]
	now     time.Time
	errs    []error
}

func newHandoverRig(t *testing.T, n int, link transport.LinkConfig) *handoverRig {
	t.Helper()
	r := &handoverRig{t: t, net: transport.NewSimNetwork(3, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	r.now = r.net.Now()
	r.net.SetDefaultLink(link)
	var err error
	if r.sconn, err = r.net.Listen("server"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.sconn.Close() })
	r.srv, err = server.New[testgame.Input](&testgame.Game{}, r.sconn, server.Config{
		StartPlayers: n, HostMigration: true, Room: server.Room{Code: "ABC234", Key: "00112233445566778899aabbccddeeff"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c := simClient(t, r.net, fmt.Sprintf("c%d", i))
		c.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(game.PlayerID(i), u) })
		r.clients = append(r.clients, c)
	}
	r.errs = make([]error, n)
	return r
}

// simClient returns a client of testgame dialed from name to "server"
// on net, closed at the test's end.
func simClient(t *testing.T, net *transport.SimNetwork, name string) *client.Client[testgame.Input] {
	t.Helper()
	conn, err := net.Dial(name, "server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c, err := client.New[testgame.Input](&testgame.Game{}, conn, client.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run steps everything for d; a client's first error is kept and it is
// not updated again.
func (r *handoverRig) run(d time.Duration) {
	for end := r.now.Add(d); r.now.Before(end); {
		r.now = r.now.Add(time.Millisecond)
		r.net.Advance(r.now)
		if err := r.srv.Update(r.now); err != nil {
			r.t.Fatal(err)
		}
		for i, c := range r.clients {
			if r.errs[i] == nil {
				r.errs[i] = c.Update(r.now)
			}
		}
	}
}

// TestHandoverReachesEveryPlayer: with HostMigration, every player of a
// lossy match (5 % loss, 50 ms one way) holds the server's newest
// handover data, naming every player with a digest of the very cookie
// that player holds; it goes with every round for a second after a change
// and once a second after that; a malformed or older one is ignored; and
// the server's "goes on elsewhere" goodbye reaches every player as
// ErrHostLeaving with codec.ReasonMigrate.
func TestHandoverReachesEveryPlayer(t *testing.T) {
	r := newHandoverRig(t, 4, transport.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
	r.run(3 * time.Second)
	for i, err := range r.errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	want, ok := r.srv.Handover()
	if !ok || len(want.Players) != 4 || want.Code != "ABC234" || want.TickRate != 60 || !want.Open {
		t.Fatalf("server's handover %+v, %v", want, ok)
	}
	for i, c := range r.clients {
		got, ok := c.Handover()
		if !ok || got.Version != want.Version || got.Code != want.Code || got.Key != want.Key || len(got.Players) != 4 {
			t.Fatalf("client %d holds %+v, want version %d", i, got, want.Version)
		}
		me, _ := c.Player()
		cookie, _ := c.Cookie()
		sum := sha256.Sum256(cookie[:])
		d := codec.CookieDigest(&sum)
		found := false
		for _, p := range got.Players {
			if p.ID == uint8(me) && slices.Contains(p.Digests, d) {
				found = true
			}
		}
		if !found {
			t.Fatalf("client %d (player %d): its cookie's digest is not in the handover %+v", i, me, got.Players)
		}
	}

	// The schedule: nothing changes now, so one datagram a second each.
	before := r.srv.Stats().HandoversOut
	r.run(5 * time.Second)
	if n := r.srv.Stats().HandoversOut - before; n < 4*4 || n > 4*6 {
		t.Fatalf("%d handovers to 4 players in 5 s without a change, want about 20", n)
	}
	// A change (a player leaves): every round for a second.
	_ = r.clients[3].Close()
	r.errs[3] = client.ErrClosed
	r.run(500 * time.Millisecond)
	before = r.srv.Stats().HandoversOut
	r.run(400 * time.Millisecond)
	if n := r.srv.Stats().HandoversOut - before; n < 3*20 {
		t.Fatalf("%d handovers to 3 players in the 0.4 s after a change, want one a tick each", n)
	}
	now, _ := r.srv.Handover()
	if len(now.Players) != 3 || now.Version == want.Version {
		t.Fatalf("after a leave: %d players, version %d (was %d)", len(now.Players), now.Version, want.Version)
	}
	r.run(time.Second)
	held, _ := r.clients[0].Handover()
	if held.Version != now.Version {
		t.Fatalf("client 0 holds version %d, want %d", held.Version, now.Version)
	}

	// The goodbye of a host that leaves while the match goes on.
	if err := r.srv.Goodbye(codec.ReasonMigrate); err != nil {
		t.Fatal(err)
	}
	r.run(300 * time.Millisecond)
	for i, c := range r.clients[:3] {
		if !errors.Is(r.errs[i], client.ErrHostLeaving) || !errors.Is(r.errs[i], client.ErrKicked) || c.ByeReason() != codec.ReasonMigrate {
			t.Fatalf("client %d after the migrate goodbye: %v, reason %v", i, r.errs[i], c.ByeReason())
		}
	}
}

// TestCookieKnownAfterRepeatedWelcomes: over a link of 1.5 s each way,
// a client sends a hello every 250 ms until the first welcome arrives, and
// the server answers each with the same welcome and a fresh cookie,
// keeping (and listing in its handover data) only the digests of the
// newest few. The client keeps the newest it receives: the cookie it
// would rejoin or migrate with is one its handover data lists. (It kept
// the first, which the server had long forgotten: a player that joined
// over a long round trip could not come back.)
func TestCookieKnownAfterRepeatedWelcomes(t *testing.T) {
	r := newHandoverRig(t, 1, transport.LinkConfig{Latency: 1500 * time.Millisecond})
	r.run(8 * time.Second)
	c := r.clients[0]
	if r.errs[0] != nil {
		t.Fatal(r.errs[0])
	}
	cookie, ok := c.Cookie()
	me, _ := c.Player()
	ho, hok := c.Handover()
	if !ok || !hok {
		t.Fatalf("welcomed %v, handover %v", ok, hok)
	}
	sum := sha256.Sum256(cookie[:])
	d := codec.CookieDigest(&sum)
	for _, p := range ho.Players {
		if p.ID == uint8(me) && slices.Contains(p.Digests, d) {
			return
		}
	}
	t.Fatalf("the client's cookie (digest %x) is not in its handover data %+v", d, ho.Players)
}

// TestHandoffWhileRebasing: a client blacked out for longer than the
// server keeps ticks is rebased (a newer welcome, back to loading a
// world). Should its server go before that world is in, the client still
// hands off, from the tick it had verified and its world then, with its
// newest cookie: a loaded player falling behind just before its host dies
// migrates instead of ending (the tab test once failed so, its ping over
// 6 s).
func TestHandoffWhileRebasing(t *testing.T) {
	r := newHandoverRig(t, 2, transport.LinkConfig{Latency: 20 * time.Millisecond})
	r.run(2 * time.Second)
	c := r.clients[0]
	r.net.Blackout("c0", r.now, r.now.Add(4500*time.Millisecond))
	var last client.Stats
	for guard := 0; !c.Loading(); guard++ {
		if guard > 20000 {
			t.Fatal("the client was not rebased")
		}
		last = c.Stats()
		r.run(time.Millisecond)
		if r.errs[0] != nil {
			t.Fatal(r.errs[0])
		}
	}
	h, ok := c.Handoff()
	if !ok {
		t.Fatal("no handoff while loading the rebase's world")
	}
	cookie, _ := c.Cookie()
	if h.Tick != last.Verified || h.World.Hash() != last.VerifiedHash || h.Cookie != cookie || h.Handover.Code != "ABC234" {
		t.Fatalf("handoff at tick %d hash %x, cookie ok %v; the client had verified tick %d, hash %x",
			h.Tick, h.World.Hash(), h.Cookie == cookie, last.Verified, last.VerifiedHash)
	}
	if st := c.Stats(); st.Rebases != 1 {
		t.Fatalf("%d rebases", st.Rebases)
	}
}

// TestHandoverNamesCookieBeforeWelcome: a player that joins a running
// match gets its welcome (and cookie) no sooner than the players already
// in it get handover data naming that cookie: a host that goes just
// after a join leaves claimers that can take the newcomer back (its
// cookie was refused "bad cookie" at the next host when the data went
// only with the next round of ticks).
func TestHandoverNamesCookieBeforeWelcome(t *testing.T) {
	r := newHandoverRig(t, 1, transport.LinkConfig{Latency: 20 * time.Millisecond})
	r.run(time.Second)
	late := simClient(t, r.net, "late")
	r.clients, r.errs = append(r.clients, late), append(r.errs, nil)
	for i := 0; ; i++ {
		if i > 5000 {
			t.Fatal("the late player was not welcomed within 5 s")
		}
		r.run(time.Millisecond)
		cookie, ok := late.Cookie()
		if !ok {
			continue
		}
		me, _ := late.Player()
		sum := sha256.Sum256(cookie[:])
		d := codec.CookieDigest(&sum)
		ho, _ := r.clients[0].Handover()
		for _, p := range ho.Players {
			if p.ID == uint8(me) && slices.Contains(p.Digests, d) {
				return
			}
		}
		t.Fatalf("the late player (%d) holds its welcome's cookie, which the first player's handover data %+v does not name", me, ho.Players)
	}
}

// TestHandoverRoomKeyRotates (issue 43): a player leaves: the server
// counts the departure (Departures), and once the host sets a new room
// key (SetRoomKey, from another goroutine in practice), every player
// still in the lossy match holds it within a second; the player who left
// holds the old one.
func TestHandoverRoomKeyRotates(t *testing.T) {
	r := newHandoverRig(t, 3, transport.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
	r.run(3 * time.Second)
	old := r.srv.RoomKey()
	if r.srv.Stats().InputChanges == 0 { // the bots' inputs change: real play (rooms' unused timeout)
		t.Fatal("no input changes counted")
	}
	if r.srv.Departures() != 0 {
		t.Fatalf("departures %d before anyone left", r.srv.Departures())
	}
	_ = r.clients[2].Close()
	r.errs[2] = client.ErrClosed
	r.run(500 * time.Millisecond)
	if r.srv.Departures() != 1 {
		t.Fatalf("departures %d after one left", r.srv.Departures())
	}
	const key = "ffeeddccbbaa99887766554433221100"
	r.srv.SetRoomKey(key)
	r.run(time.Second)
	for i, c := range r.clients[:2] {
		if got, _ := c.Handover(); got.Key != key {
			t.Fatalf("client %d holds key %q, want the new one", i, got.Key)
		}
	}
	if got, _ := r.clients[2].Handover(); got.Key != old {
		t.Fatalf("the player who left holds %q", got.Key)
	}
}
