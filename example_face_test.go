package rewind_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// This file's game imports rewind, and world for its state: nothing else
// of the engine. Settings, counters and errors all have names in rewind.

// DotInput is what a player of the dot game does in a tick.
type DotInput struct {
	DX int8 `rewind:"min=-1,max=1"`
}

// Dot is a game of one dot per player on a line.
type Dot struct {
	x world.Grid[int32] // one cell per player slot
}

func (d *Dot) Register(s *world.Schema) error {
	d.x = world.AddGrid[int32](s, "x", rewind.MaxPlayers, 1)
	return s.Err()
}

func (d *Dot) Setup(w *world.World) error { return nil }

func (d *Dot) Step(w *world.World, t *rewind.Tick[DotInput]) {
	x := d.x.Cells(w)
	for p, in := range t.Inputs {
		if t.Present[p] {
			x[p] += int32(in.DX)
		}
	}
}

// Example_face plays the dot game with settings of its own, stops through
// the OnUpdate hook, draws between the last two ticks from the view's
// copies, and tells errors apart with errors.Is, all through package
// rewind. (Made-up time here; Run drives the same session in real time
// while a view goroutine draws.)
func Example_face() {
	errEnough := errors.New("enough")
	d := &Dot{}
	s, err := rewind.Play[DotInput](d, rewind.Options{
		Server: rewind.ServerConfig{PlayerTimeout: 2 * time.Second},
		Client: rewind.ClientConfig{InputDelay: 1},
		OnUpdate: func(now time.Time, st rewind.Stats) error {
			if st.Verified >= 60 {
				return errEnough // Run would stop and return it
			}
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	s.SetInput(DotInput{DX: 1})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for err == nil {
		now = now.Add(time.Millisecond)
		err = s.Update(now)
	}
	var st rewind.Stats = s.Stats()
	fmt.Println(errors.Is(err, errEnough), s.State(), "verified", st.Verified, "desyncs", st.Desyncs)

	me, _ := s.Player()
	s.ViewBetween(now, func(prev, cur *world.World, alpha float64) {
		from, to := d.x.Cells(prev)[me], d.x.Cells(cur)[me]
		fmt.Println("the dot moves by", to-from, "from tick to tick")
	})

	s.Close()
	fmt.Println(s.State(), errors.Is(s.Update(now), rewind.ErrClosed))

	// Nobody at the address: ConnectUDP gives up after the handshake
	// timeout.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	dead := pc.LocalAddr().String()
	pc.Close()
	_, err = rewind.ConnectUDP(context.Background(), &Dot{}, dead, rewind.UDPOptions{
		UDP: rewind.UDPConfig{HandshakeTimeout: 100 * time.Millisecond},
	})
	fmt.Println(errors.Is(err, rewind.ErrHandshake), errors.Is(err, rewind.ErrConnRefused))
	// Output:
	// true playing verified 60 desyncs 0
	// the dot moves by 1 from tick to tick
	// ended true
	// true false
}
