package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testinput"
	"github.com/rewindnet/rewind/transport"
)

// testInput is the input the tests pack: every kind of field.
type testInput = testinput.Input

func testInputs(t testing.TB, n int) (*inputs.Type[testInput], [][]byte) {
	it, err := inputs.NewType[testInput]()
	if err != nil {
		t.Fatal(err)
	}
	out, err := testinput.Packed(n, func(v *testInput) ([]byte, error) {
		p := it.Pack(make([]byte, it.Size()), v)
		return p, it.Sanitize(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return it, out
}

func TestClientInputs(t *testing.T) {
	it, ins := testInputs(t, 40)
	for _, c := range []struct {
		first uint32
		ack   reliable.Ack
		n     int
	}{
		{1000, reliable.Ack{Next: 990}, 1},
		{70000, reliable.Ack{Next: 69990, Mask: 0b1011}, 40},
		{5, reliable.Ack{Next: 5}, 0},
		{1 << 31, reliable.Ack{Next: 1<<31 - 100, Mask: 1 << 63}, 2},
	} {
		payload := it.AppendInputs(nil, ins[:c.n])
		m := ClientInputs{Tag: 0x42, First: c.first, Ack: c.ack, Count: c.n, Payload: payload}
		parse := func(b []byte) (ClientInputs, int, error) { return ParseClientInputs(b, c.first+100) }
		b := checkMessageNoTrunc(t, &m, parse)
		// Every truncation fails, once the payload is decoded too.
		for i := 0; i < len(b); i++ {
			err := parseAndDecodeInputs(it.Schema, b[:i], c.first)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("n=%d: truncation to %d of %d: %v", c.n, i, len(b), err)
			}
		}
		got, _, _ := ParseClientInputs(b, c.first-1000)
		i := 0
		err := it.DecodeInputs(nil, got.Payload, got.Count, func(j int, in []byte) error {
			if j != i || string(in) != string(ins[j]) {
				t.Fatalf("input %d differs", j)
			}
			i++
			return nil
		})
		if err != nil || i != c.n {
			t.Fatalf("decode: %v after %d of %d", err, i, c.n)
		}
	}
}

func parseAndDecodeInputs(s *inputs.Schema, b []byte, near uint32) error {
	m, _, err := ParseClientInputs(b, near)
	if err != nil {
		return err
	}
	return s.DecodeInputs(nil, m.Payload, m.Count, func(int, []byte) error { return nil })
}

// checkMessageNoTrunc is checkMessage without the truncation check, for
// messages whose last part runs to the datagram's end.
func checkMessageNoTrunc[M any](t *testing.T, m *M, parse func([]byte) (M, int, error)) []byte {
	t.Helper()
	mm := any(m).(message)
	b := mm.Append(nil)
	if len(b) != mm.Length() {
		t.Fatalf("Length() = %d, len(Append(nil)) = %d", mm.Length(), len(b))
	}
	got, n, err := parse(b)
	if err != nil || n != len(b) {
		t.Fatalf("parse: n=%d of %d, %v", n, len(b), err)
	}
	b2 := any(&got).(message).Append(nil)
	if string(b2) != string(b) {
		t.Fatalf("re-encoding differs:\n%x\n%x", b2, b)
	}
	return b
}

func TestClientInputsBad(t *testing.T) {
	it, ins := testInputs(t, 3)
	m := ClientInputs{Tag: 1, First: 10, Ack: reliable.Ack{Next: 9}, Count: 3, Payload: it.AppendInputs(nil, ins)}
	b := m.Append(nil)
	// Trailing garbage after the inputs.
	err := parseAndDecodeInputs(it.Schema, append(append([]byte{}, b...), 0), 10)
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	// An explicit count of 1.
	bad := []byte{byte(TypeClientInputs)<<4 | 2, 1, 10, 0, 2, 1, 0}
	mustFail(t, "count 1", bad, func(b []byte) (ClientInputs, int, error) { return ParseClientInputs(b, 10) }, ErrMalformed)
	bad = []byte{byte(TypeClientInputs)<<4 | 8, 1, 10, 0, 2, 0}
	mustFail(t, "flags", bad, func(b []byte) (ClientInputs, int, error) { return ParseClientInputs(b, 10) }, ErrMalformed)
	// An enum out of range is refused by DecodeInputs.
	v := testInput{Weapon: 9}
	p := it.Pack(make([]byte, it.Size()), &v)
	payload := it.AppendInputs(nil, [][]byte{p})
	if err := it.DecodeInputs(nil, payload, 1, func(int, []byte) error { return nil }); !errors.Is(err, inputs.ErrBadEnum) {
		t.Fatalf("enum 9: %v", err)
	}
}

// TestDecodeInputsAllocs checks that decoding a datagram's inputs, with an
// inputs.Decoder kept from one datagram to the next, allocates nothing:
// through the iterator and through DecodeInputs with a callback that does
// not itself allocate.
func TestDecodeInputsAllocs(t *testing.T) {
	it, ins := testInputs(t, 40)
	for _, n := range []int{1, 3, 40} {
		payload := it.AppendInputs(nil, ins[:n])
		d := new(inputs.Decoder)
		sum := 0
		allocs := testing.AllocsPerRun(100, func() {
			d.Reset(it.Schema, payload, n)
			for d.Next() {
				sum += int(d.Input()[0]) + d.Index()
			}
			if d.Err() != nil {
				t.Fatal(d.Err())
			}
		})
		if allocs != 0 {
			t.Errorf("inputs.Decoder, %d inputs: %v allocations per datagram", n, allocs)
		}
		fn := func(i int, in []byte) error { sum += int(in[0]) + i; return nil }
		allocs = testing.AllocsPerRun(100, func() {
			if err := it.DecodeInputs(d, payload, n, fn); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("DecodeInputs, %d inputs: %v allocations per datagram", n, allocs)
		}
		_ = sum
	}
}

// TestInputsDecoder checks the iterator against the inputs coded, and that
// it stops at an error and stays stopped.
func TestInputsDecoder(t *testing.T) {
	it, ins := testInputs(t, 12)
	payload := it.AppendInputs(nil, ins)
	var d inputs.Decoder
	for round := 0; round < 2; round++ { // a reused decoder starts afresh
		d.Reset(it.Schema, payload, len(ins))
		n := 0
		for d.Next() {
			if d.Index() != n || string(d.Input()) != string(ins[n]) {
				t.Fatalf("round %d: input %d (index %d) differs", round, n, d.Index())
			}
			n++
		}
		if d.Err() != nil || n != len(ins) {
			t.Fatalf("round %d: %v after %d of %d", round, d.Err(), n, len(ins))
		}
		if d.Next() {
			t.Fatal("Next after the end")
		}
	}
	// Truncated: the inputs before the cut come out, then an error.
	d.Reset(it.Schema, payload[:len(payload)/2], len(ins))
	n := 0
	for d.Next() {
		n++
	}
	if !errors.Is(d.Err(), io.ErrUnexpectedEOF) || n == 0 || n == len(ins) {
		t.Fatalf("truncated: %v after %d", d.Err(), n)
	}
	if d.Next() {
		t.Fatal("Next after an error")
	}
	// One input fewer than the payload holds: trailing bits.
	d.Reset(it.Schema, payload, len(ins)-1)
	for d.Next() {
	}
	if !errors.Is(d.Err(), ErrMalformed) {
		t.Fatalf("count short by one: %v", d.Err())
	}
}

// decodeInPlace is inputs.Decoder's loop reading the payload in place (no
// zero-padded copy): the reference the padded decoder must match.
func decodeInPlace(s *inputs.Schema, payload []byte, count int) (ins [][]byte, err error) {
	var st inputs.State
	var r inputs.BitReader
	s.ResetState(&st, nil)
	r.Reset(payload)
	for i := 0; i < count; i++ {
		if err := s.DecodeDeltaFast(&r, &st); err != nil {
			return ins, fmt.Errorf("input %d: %w", i, err)
		}
		in := append([]byte(nil), st.Input()...)
		if err := s.Sanitize(in); err != nil {
			return ins, fmt.Errorf("input %d: %w", i, err)
		}
		ins = append(ins, in)
	}
	if rem := r.Remaining(); rem >= 8 {
		return ins, errMalformedf("%d trailing bytes after inputs", rem/8)
	} else if rem > 0 && r.ReadBits(uint(rem)) != 0 {
		return ins, errMalformedf("nonzero padding after inputs")
	}
	return ins, nil
}

// TestInputsDecoderMatchesInPlace checks that decoding from the padded
// copy gives the inputs and the error that reading in place gives, for
// every truncation and for random corruptions of valid payloads.
func TestInputsDecoderMatchesInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var d inputs.Decoder
	check := func(s *inputs.Schema, p []byte, count int) {
		t.Helper()
		want, werr := decodeInPlace(s, p, count)
		var got [][]byte
		d.Reset(s, p, count)
		for d.Next() {
			got = append(got, append([]byte(nil), d.Input()...))
		}
		gerr := d.Err()
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || len(got) != len(want) {
			t.Fatalf("payload %x count %d: got %d inputs, %v; in place %d, %v", p, count, len(got), gerr, len(want), werr)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("payload %x: input %d differs", p, i)
			}
		}
	}
	for _, n := range []int{1, 2, 5, 12} {
		it, ins := testInputs(t, n)
		payload := it.AppendInputs(nil, ins)
		for cut := 0; cut <= len(payload); cut++ {
			check(it.Schema, payload[:cut], n)
			check(it.Schema, payload[:cut], n-1)
		}
		for range 2000 {
			p := append([]byte(nil), payload...)
			for range 1 + rng.IntN(3) {
				p[rng.IntN(len(p))] ^= byte(1 << rng.IntN(8))
			}
			check(it.Schema, p[:rng.IntN(len(p)+1)], n)
			check(it.Schema, p, n)
		}
	}
	// Too long for the padded copy: read in place.
	it, _ := testInputs(t, 1)
	long := make([]byte, transport.MaxDatagram+1)
	check(it.Schema, long, 1)
}

type benchIn struct {
	DX   int8 `rewind:"min=-3,max=3"`
	DY   int8 `rewind:"min=-3,max=3"`
	Fire bool
	Aim  uint8
}

// BenchmarkInputsDecodeKey decodes what a client's datagram usually
// carries: one input coded against the zero input (a key frame), through
// the inputs.Decoder a server keeps.
func BenchmarkInputsDecodeKey(b *testing.B) {
	it, err := inputs.NewType[benchIn]()
	if err != nil {
		b.Fatal(err)
	}
	v := benchIn{DX: 2, DY: -1, Fire: true, Aim: 200}
	payload := it.AppendInputs(nil, [][]byte{it.Pack(make([]byte, it.Size()), &v)})
	var d inputs.Decoder
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(it.Schema, payload, 1)
		for d.Next() {
		}
		if d.Err() != nil {
			b.Fatal(d.Err())
		}
	}
}
