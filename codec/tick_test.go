package codec

import (
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/rewindnet/rewind/codec/inputs"
)

// randomMatch drives a TickEncoder through n ticks of random joins,
// leaves, input changes and late marks, returning the bodies and what each
// tick should decode to.
func randomMatch(t testing.TB, seed uint64, n int, hashBits uint8) (*inputs.Type[testInput], *Roster, [][]byte, []Tick, [][MaxPlayers][]byte) {
	it, _ := testInputs(t, 0)
	rng := rand.New(rand.NewPCG(seed, 1))
	enc := NewTickEncoder(it.Schema, hashBits)
	start := NewRoster(it.Schema)
	var bodies [][]byte
	var want []Tick
	var inputs [][MaxPlayers][]byte
	vals := map[uint8]*testInput{}
	for i := 0; i < n; i++ {
		var tk Tick
		present := enc.Roster().Present()
		if rng.IntN(10) == 0 || present == 0 {
			p := uint8(rng.IntN(8))
			if present.Has(p) {
				if err := enc.Leave(p); err != nil {
					t.Fatal(err)
				}
				tk.Events = append(tk.Events, Event{EventLeave, p})
				delete(vals, p)
				present = present.Without(p)
			} else {
				if err := enc.Join(p); err != nil {
					t.Fatal(err)
				}
				tk.Events = append(tk.Events, Event{EventJoin, p})
				vals[p] = &testInput{}
				present = present.With(p)
			}
		}
		for set := uint64(present); set != 0; set &= set - 1 {
			p := uint8(trailingZeros(set))
			v := vals[p]
			switch rng.IntN(6) {
			case 0:
				v.Move = int8(rng.IntN(201) - 100)
			case 1:
				v.Turn += int16(rng.IntN(5)-2) * 256
				v.Turn = max(min(v.Turn, 1000), -1000)
				v.Aim = float32(rng.Float64()*8 - 4)
			case 2:
				v.Fire = !v.Fire
			case 3:
				enc.SetLate(p)
				tk.Late = tk.Late.With(p)
				continue
			}
			in := it.Pack(make([]byte, it.Size()), v)
			if err := enc.SetInput(p, in); err != nil {
				t.Fatal(err)
			}
		}
		hash := rng.Uint64()
		if hashBits < 64 {
			tk.Hash = hash & (1<<hashBits - 1)
		} else {
			tk.Hash = hash
		}
		before := map[uint8]string{}
		for p := range vals {
			if enc.Roster().Present().Has(p) {
				before[p] = string(enc.Roster().Input(p))
			}
		}
		bodies = append(bodies, enc.AppendTick(nil, hash))
		tk.Present = enc.Roster().Present()
		var ins [MaxPlayers][]byte
		for p := range vals {
			ins[p] = append([]byte{}, enc.Roster().Input(p)...)
			if b, ok := before[p]; (ok && b != string(ins[p])) || (!ok && string(ins[p]) != string(make([]byte, it.Size()))) {
				tk.Changed = tk.Changed.With(p)
			}
		}
		tk.Late &^= tk.Changed
		want = append(want, tk)
		inputs = append(inputs, ins)
	}
	return it, start, bodies, want, inputs
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

func TestTickStream(t *testing.T) {
	for _, hb := range []uint8{0, 8, 13, 64} {
		it, _, bodies, want, inputs := randomMatch(t, uint64(hb)+1, 500, hb)
		dec := NewTickDecoder(it.Schema, hb)
		tk := Tick{Events: make([]Event, 0, MaxEvents)}
		for i, b := range bodies {
			if err := dec.DecodeTick(b, &tk); err != nil {
				t.Fatalf("hb=%d tick %d: %v", hb, i, err)
			}
			w := want[i]
			if tk.Present != w.Present || tk.Changed != w.Changed || tk.Late != w.Late || tk.Hash != w.Hash || len(tk.Events) != len(w.Events) {
				t.Fatalf("hb=%d tick %d: got %+v want %+v", hb, i, tk, w)
			}
			for j := range w.Events {
				if tk.Events[j] != w.Events[j] {
					t.Fatalf("tick %d event %d", i, j)
				}
			}
			for p := uint8(0); p < MaxPlayers; p++ {
				if string(dec.Roster().Input(p)) != string(inputs[i][p]) {
					t.Fatalf("tick %d player %d input differs", i, p)
				}
			}
		}
	}
}

func TestTickTruncationAndAtomicity(t *testing.T) {
	it, _, bodies, _, _ := randomMatch(t, 7, 200, 8)
	dec := NewTickDecoder(it.Schema, 8)
	var tk Tick
	for i, b := range bodies {
		before := NewRoster(it.Schema)
		before.CopyFrom(dec.Roster())
		snap := string(before.AppendSnapshot(nil))
		for j := 0; j < len(b); j++ {
			err := dec.DecodeTick(b[:j], &tk)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("tick %d truncated to %d of %d: %v", i, j, len(b), err)
			}
			if string(dec.Roster().AppendSnapshot(nil)) != snap {
				t.Fatalf("tick %d: failed decode changed the roster", i)
			}
		}
		if err := dec.DecodeTick(append(append([]byte{}, b...), 0), &tk); !errors.Is(err, ErrMalformed) {
			t.Fatalf("trailing byte: %v", err)
		}
		if err := dec.DecodeTick(b, &tk); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRosterSnapshot(t *testing.T) {
	it, _, bodies, _, _ := randomMatch(t, 3, 300, 8)
	dec := NewTickDecoder(it.Schema, 8)
	var tk Tick
	for i, b := range bodies {
		if i == 150 {
			// A client joining here loads the snapshot and decodes on.
			snap := dec.Roster().AppendSnapshot(nil)
			if len(snap) != dec.Roster().SnapshotLength() {
				t.Fatalf("SnapshotLength %d != %d", dec.Roster().SnapshotLength(), len(snap))
			}
			dec2 := NewTickDecoder(it.Schema, 8)
			if err := dec2.Roster().ParseSnapshot(snap); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < len(snap); j++ {
				if err := NewRoster(it.Schema).ParseSnapshot(snap[:j]); !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("snapshot truncated to %d: %v", j, err)
				}
			}
			for _, b2 := range bodies[i:] {
				if err := dec2.DecodeTick(b2, &tk); err != nil {
					t.Fatal(err)
				}
			}
			for _, b2 := range bodies[i:] {
				if err := dec.DecodeTick(b2, &tk); err != nil {
					t.Fatal(err)
				}
			}
			if string(dec.Roster().AppendSnapshot(nil)) != string(dec2.Roster().AppendSnapshot(nil)) {
				t.Fatal("decoders disagree after a snapshot")
			}
			return
		}
		if err := dec.DecodeTick(b, &tk); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTickEncoderErrors(t *testing.T) {
	it, _ := testInputs(t, 0)
	enc := NewTickEncoder(it.Schema, 8)
	if err := enc.Join(MaxPlayers); !errors.Is(err, ErrPlayer) {
		t.Fatal(err)
	}
	if err := enc.Leave(1); !errors.Is(err, ErrPlayer) {
		t.Fatal(err)
	}
	if err := enc.SetInput(1, make([]byte, it.Size())); !errors.Is(err, ErrPlayer) {
		t.Fatal(err)
	}
	if err := enc.Join(1); err != nil {
		t.Fatal(err)
	}
	if err := enc.Join(1); !errors.Is(err, ErrPlayer) {
		t.Fatal(err)
	}
	if err := enc.SetInput(1, []byte{1}); !errors.Is(err, inputs.ErrSize) {
		t.Fatal(err)
	}
	enc.AppendTick(nil, 0)
	// A body claiming a leave of an absent player is refused.
	dec := NewTickDecoder(it.Schema, 0)
	var w inputs.BitWriter
	w.WriteBits(1, 1)
	w.WriteGamma(1)
	w.WriteBits(1, 1)
	w.WriteBits(5, 6)
	w.WriteBits(0, 1)
	var tk Tick
	if err := dec.DecodeTick(w.Bytes(), &tk); !errors.Is(err, ErrPlayer) {
		t.Fatalf("leave of absent: %v", err)
	}
}

func TestTickZeroAlloc(t *testing.T) {
	it, _, bodies, _, _ := randomMatch(t, 11, 100, 8)
	dec := NewTickDecoder(it.Schema, 8)
	tk := Tick{Events: make([]Event, 0, MaxEvents)}
	i := 0
	allocs := testing.AllocsPerRun(len(bodies)-1, func() {
		if err := dec.DecodeTick(bodies[i], &tk); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("DecodeTick allocates %v per tick", allocs)
	}
}

func TestTickLateWins(t *testing.T) {
	it, _ := testInputs(t, 0)
	dec := NewTickDecoder(it.Schema, 0)
	enc := NewTickEncoder(it.Schema, 0)
	enc.Join(2)
	b1 := enc.AppendTick(nil, 0)
	enc.SetLate(2)
	if err := enc.SetInput(2, it.Pack(make([]byte, it.Size()), &testInput{Move: 5})); err != nil {
		t.Fatal(err)
	}
	b2 := enc.AppendTick(nil, 0)
	var tk Tick
	for _, b := range [][]byte{b1, b2} {
		if err := dec.DecodeTick(b, &tk); err != nil {
			t.Fatal(err)
		}
	}
	if tk.Late != 1<<2 || tk.Changed != 0 || string(dec.Roster().Input(2)) != string(make([]byte, it.Size())) {
		t.Fatalf("late then set: %+v", tk)
	}
}

func TestTickEncoderZeroAlloc(t *testing.T) {
	it, ins := testInputs(t, 64)
	enc := NewTickEncoder(it.Schema, 8)
	for p := uint8(0); p < 4; p++ {
		enc.Join(p)
	}
	out := make([]byte, 0, 256)
	out = enc.AppendTick(out[:0], 1)
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		for p := uint8(0); p < 4; p++ {
			if err := enc.SetInput(p, ins[(i+int(p))%len(ins)]); err != nil {
				t.Fatal(err)
			}
		}
		if i%7 == 0 {
			enc.SetLate(1)
		}
		out = enc.AppendTick(out[:0], uint64(i))
		i++
	})
	if allocs != 0 {
		t.Fatalf("SetInput+AppendTick allocate %v per tick", allocs)
	}
}
