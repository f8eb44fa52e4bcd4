package rewind_test

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Input is what a player of the counting game does in a tick.
type Input struct {
	Add int8 `rewind:"min=-5,max=5"`
}

// Counter is a tiny game: every player has a score, and every tick adds
// the player's input to it.
type Counter struct {
	scores world.Grid[int32] // one cell per player slot
}

func (c *Counter) Register(s *world.Schema) error {
	c.scores = world.AddGrid[int32](s, "scores", rewind.MaxPlayers, 1)
	return s.Err()
}

func (c *Counter) Setup(w *world.World) error { return nil }

func (c *Counter) Step(w *world.World, t *rewind.Tick[Input]) {
	scores := c.scores.Cells(w)
	for p, in := range t.Inputs {
		if t.Present[p] {
			scores[p] += int32(in.Add)
		}
	}
}

// ExamplePlay plays the counting game single-player: a server and a client
// in one process over a loopback, the same code path as online. The
// session is driven here in made-up time; Run drives it in real time.
func ExamplePlay() {
	g := &Counter{}
	s, err := rewind.Play[Input](g, rewind.Options{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	s.SetInput(Input{Add: 2})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 1010 { // a second, a millisecond at a time
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			panic(err)
		}
	}
	st := s.Stats()
	me, _ := s.Player()
	fmt.Println("player", me, "verified tick", st.Verified, "desyncs", st.Desyncs)
	s.View(now, func(w *world.World, alpha float64) {
		fmt.Println("predicted score", g.scores.Get(w, int(me), 0))
	})
	// Output:
	// player 0 verified tick 60 desyncs 0
	// predicted score 120
}

// ExampleConnect connects two players to a server over the network
// simulator (made-up time, 30 ms each way). Each player runs its own
// session against its transport.Conn, as it would over UDP.
func ExampleConnect() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 30 * time.Millisecond})
	sconn, _ := net.Listen("server")
	defer sconn.Close()

	// The server: the match starts when two players are in.
	srv, err := server.New[Input](&Counter{}, sconn, server.Config{StartPlayers: 2})
	if err != nil {
		panic(err)
	}

	var sessions []*rewind.Session[Input]
	for i, name := range []string{"ann", "bob"} {
		conn, _ := net.Dial(name, "server")
		defer conn.Close()
		s, err := rewind.Connect[Input](&Counter{}, conn, rewind.Options{})
		if err != nil {
			panic(err)
		}
		s.SetInput(Input{Add: int8(i + 1)})
		sessions = append(sessions, s)
	}
	now := start
	for range 2000 {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := srv.Update(now); err != nil {
			panic(err)
		}
		for _, s := range sessions {
			if err := s.Update(now); err != nil {
				panic(err)
			}
		}
	}
	a, b := sessions[0].Stats(), sessions[1].Stats()
	fmt.Println("same world at a common tick:", a.Verified > 60 && b.Verified > 60)
	fmt.Println("desyncs:", a.Desyncs+b.Desyncs)
	// Output:
	// same world at a common tick: true
	// desyncs: 0
}

// ExampleNewSyncTest checks a game for determinism before it plays a
// match: every tick is rolled back and simulated again, and must hash the
// same.
func ExampleNewSyncTest() {
	st, err := rewind.NewSyncTest[Input](&Counter{}, 2, 8)
	if err != nil {
		panic(err)
	}
	for tick := range 100 {
		if err := st.Step([]Input{{Add: int8(tick % 3)}, {Add: -1}}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("deterministic over", st.Tick(), "ticks, each resimulated", st.Resimulated/uint64(st.Tick()), "times")
	// Output: deterministic over 100 ticks, each resimulated 7 times
}
