package codec

import (
	"fmt"
	"io"

	"github.com/rewindnet/rewind/codec/reliable"
)

// ServerTicks carries tick bodies (see TickEncoder) to one client, with the
// server's acknowledgement of that client's inputs and, now and then, how
// early its inputs arrive. Usually one fresh tick rides alone; a client that
// is behind, or missed some, gets several in one datagram (up to
// MaxDatagram bytes), ascending.
//
//	0      0x2<<4 | flags: bit 0 = margin present, bit 1 = tick count
//	       present (else 1 tick), bit 2 = ack mask present; bit 3 zero
//	1      connection tag
//	2..3   First: the first tick carried (or, with none, the server's
//	       current tick), low 16 bits LE; expanded near the receiver's tick
//	4..    Ack.Next - First as a zigzag varint (client input ticks held)
//	       Ack.Mask varint, if flag bit 2
//	       Margin zigzag varint, if flag bit 0
//	       count varint (0 or 2..MaxTicksPerMessage), if flag bit 1
//	       then per tick i (0-based):
//	         i > 0:           varint gap: Tick[i] - Tick[i-1] - 1
//	         i < count-1:     varint body length (>= 1), then the body
//	         i == count-1:    the body, running to the datagram's end
//
// One fresh tick for a 4-player match is thus 2 (header) + 2 (tick) + 1
// (ack) + the body: see docs/benchmarks.md for the measured average.
type ServerTicks struct {
	// Tag is the connection tag.
	Tag uint8
	// First is the tick of Ticks[0], or the server's current tick when
	// Ticks is empty (it is the reference for Ack).
	First uint32
	// Ack says which of this client's input ticks the server holds (or no
	// longer needs).
	Ack reliable.Ack
	// HasMargin says Margin is present.
	HasMargin bool
	// Margin is how early this client's inputs arrive at the server, in
	// milliseconds: positive = before the server needs them, negative =
	// late. The client steers its lead by it.
	Margin int32
	// Ticks are the tick bodies, ascending by tick number; Ticks[0].Tick
	// must equal First. Bodies alias the parsed datagram.
	Ticks []TickBody
}

// TickBody is one tick's number and encoded body.
type TickBody struct {
	Tick uint32
	Body []byte
}

// MaxTicksPerMessage bounds the ticks in one ServerTicks.
const MaxTicksPerMessage = 255

// Length returns the encoded length.
func (m *ServerTicks) Length() int {
	n := shortHeaderLen + 2 + ackRelLen(m.Ack, m.First)
	if m.HasMargin {
		n += uvarintLen(zigzag(int64(m.Margin)))
	}
	if len(m.Ticks) != 1 {
		n += uvarintLen(uint64(len(m.Ticks)))
	}
	for i, t := range m.Ticks {
		if i > 0 {
			n += uvarintLen(uint64(t.Tick - m.Ticks[i-1].Tick - 1))
		}
		if i < len(m.Ticks)-1 {
			n += uvarintLen(uint64(len(t.Body)))
		}
		n += len(t.Body)
	}
	return n
}

// Append appends the encoding to b. Ticks must be ascending with nonempty
// bodies, and Ticks[0].Tick == First.
func (m *ServerTicks) Append(b []byte) []byte {
	var flags byte
	if m.HasMargin {
		flags |= 1
	}
	if len(m.Ticks) != 1 {
		flags |= 2
	}
	if m.Ack.Mask != 0 {
		flags |= 4
	}
	b = append(b, byte(TypeServerTicks)<<4|flags, m.Tag, byte(m.First), byte(m.First>>8))
	b = appendAckRel(b, m.Ack, m.First)
	if m.HasMargin {
		b = appendUvarint(b, zigzag(int64(m.Margin)))
	}
	if len(m.Ticks) != 1 {
		b = appendUvarint(b, uint64(len(m.Ticks)))
	}
	for i, t := range m.Ticks {
		if i > 0 {
			b = appendUvarint(b, uint64(t.Tick-m.Ticks[i-1].Tick-1))
		}
		if i < len(m.Ticks)-1 {
			b = appendUvarint(b, uint64(len(t.Body)))
		}
		b = append(b, t.Body...)
	}
	return b
}

// ParseServerTicks parses a ServerTicks datagram (all of b), expanding its
// 16-bit tick near the receiver's tick near. It allocates the Ticks slice;
// Unmarshal reuses one.
func ParseServerTicks(b []byte, near uint32) (ServerTicks, int, error) {
	var m ServerTicks
	n, err := m.Unmarshal(b, near)
	return m, n, err
}

// Unmarshal parses b into m like ParseServerTicks, reusing m.Ticks's
// capacity (give it MaxTicksPerMessage to parse without allocating).
func (m *ServerTicks) Unmarshal(b []byte, near uint32) (int, error) {
	ticks := m.Ticks[:0]
	*m = ServerTicks{}
	flags, tag, err := parseShortHeader(b, TypeServerTicks)
	if err != nil {
		return 0, err
	}
	if flags&8 != 0 {
		return 0, errMalformedf("server ticks flags %#x", flags)
	}
	if len(b) < shortHeaderLen+2 {
		return 0, io.ErrUnexpectedEOF
	}
	m.Tag = tag
	m.First = ExpandTick(uint16(b[2])|uint16(b[3])<<8, near)
	p := shortHeaderLen + 2
	if m.Ack, err = readAckRel(b, &p, m.First, flags&4 != 0); err != nil {
		return 0, err
	}
	if flags&1 != 0 {
		if m.Margin, err = readMargin(b, &p); err != nil {
			return 0, err
		}
		m.HasMargin = true
	}
	count := uint64(1)
	if flags&2 != 0 {
		if count, err = readUvarint(b, &p); err != nil {
			return 0, err
		}
		if count == 1 {
			return 0, errMalformedf("server ticks count 1 given explicitly")
		}
		if count > MaxTicksPerMessage {
			return 0, fmt.Errorf("%w: %d ticks in one message", ErrTooLarge, count)
		}
	}
	if count > uint64(len(b)-p) { // every tick takes at least a byte
		return 0, io.ErrUnexpectedEOF
	}
	if ticks, err = readTicks(ticks, b, &p, m.First, int(count)); err != nil {
		return 0, err
	}
	if count == 0 && p != len(b) {
		return 0, errMalformedf("server ticks without ticks has %d trailing bytes", len(b)-p)
	}
	m.Ticks = ticks
	return p, nil
}

// readMargin reads the margin: a zigzag varint within int32.
func readMargin(b []byte, p *int) (int32, error) {
	z, err := readUvarint(b, p)
	if err != nil {
		return 0, err
	}
	v := unzigzag(z)
	if v < -1<<31 || v >= 1<<31 {
		return 0, errMalformedf("margin %d", v)
	}
	return int32(v), nil
}

// readTicks appends count ticks read from b at *p to ticks: the first is
// tick first, each later one a gap varint after the one before; every body
// but the last has a length varint, and the last runs to the end of b.
func readTicks(ticks []TickBody, b []byte, p *int, first uint32, count int) ([]TickBody, error) {
	tick := first
	for i := 0; i < count; i++ {
		if i > 0 {
			gap, err := readUvarint32(b, p)
			if err != nil {
				return ticks, err
			}
			tick += gap + 1
			if tick-first > 1<<15 {
				return ticks, errMalformedf("ticks span more than 32768")
			}
		}
		if i == count-1 {
			if *p == len(b) {
				return ticks, io.ErrUnexpectedEOF
			}
			ticks = append(ticks, TickBody{Tick: tick, Body: b[*p:]})
			*p = len(b)
			break
		}
		l, err := readUvarint(b, p)
		if err != nil {
			return ticks, err
		}
		if l == 0 {
			return ticks, errMalformedf("empty tick body")
		}
		if l > uint64(len(b)-*p) {
			return ticks, io.ErrUnexpectedEOF
		}
		ticks = append(ticks, TickBody{Tick: tick, Body: b[*p : *p+int(l)]})
		*p += int(l)
	}
	return ticks, nil
}
