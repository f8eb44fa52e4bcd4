package host

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestMatchesSpreadOverPhases: in made-up time, 8 matches that start at
// one instant (their hellos answered by one drain) take the 4 even tick
// phases of the default 8 two each (the odd ones wait for phaseFill
// matches on each even one), each tick 1 due within a tick of the start; a phase
// whose match ended (its player left) or whose room closed is the one
// the next match takes, whatever the instant it starts at.
func TestMatchesSpreadOverPhases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, conn := newSentHost(t, 9)
		defer h.Close()
		n := int64(h.phases)
		peer := func(i int) transport.Addr { return transport.Addr(fmt.Sprintf("udp:127.0.0.1:%d#1", 4000+i)) }
		// start starts a match in a new room and returns the room, its
		// player's tag, and the phase its ticks fall on.
		start := func(i int) (*roomMatch[testgame.Input], uint8, int) {
			code, err := h.Open("")
			if err != nil {
				t.Fatal(err)
			}
			r := h.rooms[code]
			tag := startRoom(t, h, conn, r, peer(i)).Tag
			next, now := r.m.Server.NextDeadline(), time.Now()
			if !next.After(now) || next.After(now.Add(h.period)) {
				t.Fatalf("room %d: tick 1 due %v after its start; want within (0, %v]", i, next.Sub(now), h.period)
			}
			if !h.phaseAt(h.phaseIndex(next)).Equal(next) {
				t.Fatalf("room %d: tick 1 at %v, not on a phase", i, next.Sub(h.epoch))
			}
			p := phaseOf(h.phaseIndex(next), n)
			if r.phase != p {
				t.Fatalf("room %d ticks on phase %d, holds phase %d", i, p, r.phase)
			}
			return r, tag, p
		}
		time.Sleep(h.period * 3 / 8)
		rooms := make([]*roomMatch[testgame.Input], 8)
		phase := make([]int, 8)
		count := make([]int, n)
		var tag0 uint8
		for i := range rooms {
			var tag uint8
			rooms[i], tag, phase[i] = start(i)
			count[phase[i]]++
			if i == 0 {
				tag0 = tag
			}
		}
		if fmt.Sprint(count) != "[2 0 2 0 2 0 2 0]" {
			t.Fatalf("matches started at one instant per phase: %v, want 2 on each even one", count)
		}

		// Room 0's player leaves: its match ends, its phase is free.
		if _, soon := h.route(peer(0), (&codec.Bye{Tag: tag0}).Append(nil), time.Now()); !soon {
			t.Fatal("a bye waits for the tick")
		}
		for range 600 { // ten seconds of ticks: the match's end lingers
			if h.runRoom(rooms[0], nil); rooms[0].ended {
				break
			}
			time.Sleep(h.period)
		}
		if !rooms[0].ended || rooms[0].phase != -1 {
			t.Fatalf("after its last player left: ended %v, phase %d; want ended, no phase", rooms[0].ended, rooms[0].phase)
		}
		time.Sleep(h.period * 5 / 8) // another natural phase than the start's
		if err := h.CloseRoom(rooms[1].code); err != nil {
			t.Fatal(err)
		}
		for i, want := range []int{phase[0], phase[1]} {
			if _, _, p := start(8 + i); p != want {
				t.Errorf("a match started after phase %d was freed took phase %d", want, p)
			}
		}
	})
}

// TestPhasesFillEvenFirst: in made-up time, matches that start at one
// instant take the even phases of the default 8 up to phaseFill each,
// then the fewest-held of all: 4 × phaseFill + 8 matches hold
// phaseFill on each even phase and 2 on each odd one, 12 × 8 hold 12 on
// each.
func TestPhasesFillEvenFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, conn := newSentHost(t, 96)
		defer h.Close()
		if h.phases != defaultTickPhases || defaultTickPhases != 8 {
			t.Fatalf("%d phases, want the default 8", h.phases)
		}
		time.Sleep(h.period * 3 / 8)
		for i := range 96 {
			code, err := h.Open("")
			if err != nil {
				t.Fatal(err)
			}
			startRoom(t, h, conn, h.rooms[code], transport.Addr(fmt.Sprintf("udp:127.0.0.1:%d#1", 4000+i)))
			switch i + 1 {
			case 4*phaseFill + 8:
				if got := fmt.Sprint(h.phaseRooms); got != "[8 2 8 2 8 2 8 2]" {
					t.Fatalf("%d matches per phase: %v, want [8 2 8 2 8 2 8 2]", i+1, got)
				}
			case 96:
				if got := fmt.Sprint(h.phaseRooms); got != "[12 12 12 12 12 12 12 12]" {
					t.Fatalf("%d matches per phase: %v, want 12 on each", i+1, got)
				}
			}
		}
	})
}

// newSentHost returns a Multi of up to maxMatches rooms at the default
// options over a Conn that keeps what is sent.
func newSentHost(t *testing.T, maxMatches int) (*Multi[testgame.Input], *sentConn) {
	t.Helper()
	conn := &sentConn{nullConn: nullConn{ready: make(chan struct{})}}
	h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, Options{MaxMatches: maxMatches})
	if err != nil {
		t.Fatal(err)
	}
	return h, conn
}
