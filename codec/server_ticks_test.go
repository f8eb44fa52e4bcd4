package codec

import (
	"errors"
	"io"
	"testing"

	"github.com/rewindnet/rewind/codec/reliable"
)

func TestServerTicks(t *testing.T) {
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i + 1)
		}
		return b
	}
	for _, m := range []ServerTicks{
		{Tag: 1, First: 100, Ack: reliable.Ack{Next: 104}, Ticks: []TickBody{{100, body(5)}}},
		{Tag: 1, First: 100, Ack: reliable.Ack{Next: 90, Mask: 5}, HasMargin: true, Margin: -17, Ticks: []TickBody{{100, body(3)}, {101, body(1)}, {105, body(200)}}},
		{Tag: 2, First: 1 << 20, Ack: reliable.Ack{Next: 1<<20 + 3}, HasMargin: true, Margin: 1 << 30},
		{Tag: 3, First: 0xFFFF, Ack: reliable.Ack{Next: 0x10001}, Ticks: []TickBody{{0xFFFF, body(1)}, {0x10000, body(2)}}},
	} {
		near := m.First - 1000
		parse := func(b []byte) (ServerTicks, int, error) { return ParseServerTicks(b, near) }
		b := checkMessageNoTrunc(t, &m, parse)
		got, _, _ := parse(b)
		if len(got.Ticks) != len(m.Ticks) || got.First != m.First || got.Ack != m.Ack || got.Margin != m.Margin {
			t.Fatalf("round trip: %+v vs %+v", got, m)
		}
		for i := range m.Ticks {
			if got.Ticks[i].Tick != m.Ticks[i].Tick || string(got.Ticks[i].Body) != string(m.Ticks[i].Body) {
				t.Fatalf("tick %d differs", i)
			}
		}
		// Truncations: all fail except those cutting only into the last body
		// (which the tick decoder catches: see TestTickTruncation).
		lastStart := len(b)
		if len(m.Ticks) > 0 {
			lastStart = len(b) - len(m.Ticks[len(m.Ticks)-1].Body) + 1
		}
		for i := 0; i < lastStart && i < len(b); i++ {
			if _, _, err := parse(b[:i]); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("truncation to %d of %d: %v", i, len(b), err)
			}
		}
		// Unmarshal reuses the slice without allocating.
		var re ServerTicks
		re.Ticks = make([]TickBody, 0, MaxTicksPerMessage)
		if allocs := testing.AllocsPerRun(10, func() { re.Unmarshal(b, near) }); allocs != 0 {
			t.Fatalf("Unmarshal allocates %v", allocs)
		}
	}
}

func TestServerTicksBad(t *testing.T) {
	parse := func(b []byte) (ServerTicks, int, error) { return ParseServerTicks(b, 0) }
	mustFail(t, "count 1", []byte{0x22, 1, 0, 0, 0, 1, 5}, parse, ErrMalformed)
	mustFail(t, "flag 3", []byte{0x28, 1, 0, 0, 0, 5}, parse, ErrMalformed)
	mustFail(t, "empty body", []byte{0x22, 1, 0, 0, 0, 2, 0, 0, 5}, parse, ErrMalformed)
	mustFail(t, "no ticks but bytes", []byte{0x22, 1, 0, 0, 0, 0, 5}, parse, ErrMalformed)
	mustFail(t, "too many", []byte{0x22, 1, 0, 0, 0, 0xFF, 0x7F}, parse, ErrTooLarge)
	mustFail(t, "mask 0", []byte{0x24, 1, 0, 0, 0, 0, 5}, parse, ErrMalformed)
	mustFail(t, "non-minimal varint", []byte{0x20, 1, 0, 0, 0x80, 0x00, 5}, parse, ErrMalformed)
	mustFail(t, "wrong type", []byte{0x10, 1, 0, 0, 0, 5}, parse, ErrWrongType)
}
