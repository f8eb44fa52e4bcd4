// Package doomdemo reads DOOM 1.9 demo lumps (recorded player input) and
// lays several demos side by side as the players of one match, for the
// codec's benchmarks and tests.
package doomdemo

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// ErrBadDemo indicates a file that is not a valid DOOM 1.9 demo.
var ErrBadDemo = errors.New("doomdemo: not a DOOM 1.9 demo")

// Version is the demo version byte of DOOM 1.9.
const Version = 109

// headerLen is the DOOM 1.9 demo header length.
const headerLen = 13

// endMarker ends the tic stream.
const endMarker = 0x80

// Tic is one player's input for one tic.
type Tic struct {
	Forward   int8
	Side      int8
	AngleTurn int8 // the high byte of DOOM's 16-bit turn
	Buttons   uint8
}

// Demo is one parsed demo.
type Demo struct {
	Name    string
	Players [][]Tic // per player in game, one Tic per tic
}

// Tics returns the number of tics.
func (d *Demo) Tics() int {
	if len(d.Players) == 0 {
		return 0
	}
	return len(d.Players[0])
}

// Parse reads a DOOM 1.9 demo lump. name is used in errors.
func Parse(name string, b []byte) (*Demo, error) {
	if len(b) < headerLen+1 {
		return nil, fmt.Errorf("%w: %s: %d bytes is too short", ErrBadDemo, name, len(b))
	}
	if b[0] != Version {
		return nil, fmt.Errorf("%w: %s: version byte %d, want %d", ErrBadDemo, name, b[0], Version)
	}
	var players int
	for i := 0; i < 4; i++ {
		switch b[9+i] {
		case 0:
		case 1:
			players++
		default:
			return nil, fmt.Errorf("%w: %s: playeringame[%d] = %d", ErrBadDemo, name, i, b[9+i])
		}
	}
	if players == 0 {
		return nil, fmt.Errorf("%w: %s: no player in game", ErrBadDemo, name)
	}
	body := b[headerLen:]
	rec := 4 * players
	// The stream ends with the marker at a record boundary.
	n := 0
	for {
		if n*rec >= len(body) {
			return nil, fmt.Errorf("%w: %s: no end marker", ErrBadDemo, name)
		}
		if body[n*rec] == endMarker {
			break
		}
		if len(body)-n*rec < rec {
			return nil, fmt.Errorf("%w: %s: truncated tic %d", ErrBadDemo, name, n)
		}
		n++
	}
	if extra := len(body) - n*rec - 1; extra != 0 {
		return nil, fmt.Errorf("%w: %s: %d bytes after the end marker", ErrBadDemo, name, extra)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: %s: no tics", ErrBadDemo, name)
	}
	d := &Demo{Name: name, Players: make([][]Tic, players)}
	for p := range d.Players {
		d.Players[p] = make([]Tic, n)
	}
	for t := 0; t < n; t++ {
		for p := 0; p < players; p++ {
			o := t*rec + p*4
			d.Players[p][t] = Tic{int8(body[o]), int8(body[o+1]), int8(body[o+2]), body[o+3]}
		}
	}
	return d, nil
}

// LoadDir parses every *.lmp file in dir, sorted by name. It fails naming
// the first bad file, or if there is none.
func LoadDir(dir string) ([]*Demo, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.lmp"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no *.lmp demos in %s", dir)
	}
	var demos []*Demo
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		d, err := Parse(name, b)
		if err != nil {
			return nil, err
		}
		demos = append(demos, d)
	}
	return demos, nil
}

// Slots is the number of players a match holds at once.
const Slots = 4

// Event is a player joining or leaving the match at a tick.
type Event struct {
	Join   bool
	Player uint8 // slot id 0..Slots-1
}

// Tick is one tick of a match: who joined or left before it, and the input
// of every present player (indexed by slot; Present[s] says whether slot s
// is in the match).
type Tick struct {
	Events  []Event
	Present [Slots]bool
	Input   [Slots]Tic
	Yaw     [Slots]float32 // accumulated turn in radians, wrapped to [-π, π)
}

// Match runs demos side by side: each demo starts, in order, as soon as
// enough slots are free for all of its players; a demo that ends is players
// who leave. It returns every tick of the match.
func Match(demos []*Demo) []Tick {
	type running struct {
		d     *Demo
		slots []uint8
		t     int
	}
	var ticks []Tick
	var free [Slots]bool
	for i := range free {
		free[i] = true
	}
	var yaw [Slots]float64
	var run []*running
	next := 0
	for next < len(demos) || len(run) > 0 {
		var tk Tick
		// Leaves of demos that ended.
		kept := run[:0]
		for _, r := range run {
			if r.t < r.d.Tics() {
				kept = append(kept, r)
				continue
			}
			for _, s := range r.slots {
				free[s] = true
				tk.Events = append(tk.Events, Event{false, s})
			}
		}
		run = kept
		// Joins of demos that fit.
		for next < len(demos) {
			need := len(demos[next].Players)
			var got []uint8
			for s := uint8(0); s < Slots && len(got) < need; s++ {
				if free[s] {
					got = append(got, s)
				}
			}
			if len(got) < need {
				break
			}
			for _, s := range got {
				free[s] = false
				yaw[s] = 0
				tk.Events = append(tk.Events, Event{true, s})
			}
			run = append(run, &running{d: demos[next], slots: got})
			next++
		}
		if len(run) == 0 {
			if len(tk.Events) > 0 {
				ticks = append(ticks, tk)
			}
			continue
		}
		for _, r := range run {
			for i, s := range r.slots {
				tic := r.d.Players[i][r.t]
				tk.Present[s] = true
				tk.Input[s] = tic
				yaw[s] += float64(int16(uint16(uint8(tic.AngleTurn))<<8)) * (2 * math.Pi / 65536)
				for yaw[s] >= math.Pi {
					yaw[s] -= 2 * math.Pi
				}
				for yaw[s] < -math.Pi {
					yaw[s] += 2 * math.Pi
				}
				tk.Yaw[s] = float32(yaw[s])
			}
			r.t++
		}
		ticks = append(ticks, tk)
	}
	return ticks
}
