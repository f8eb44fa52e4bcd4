package codec

import (
	"fmt"
	"io"

	"github.com/rewindnet/rewind/codec/reliable"
)

// ClientInputs carries a client's inputs for a run of consecutive ticks and
// its acknowledgement of the server's ticks. The client sends one every tick
// with every input the server has not acknowledged (ServerTicks.Ack), so a
// lost datagram is made good by the next one without waiting.
//
//	0      0x1<<4 | flags: bit 0 = ack mask present, bit 1 = count present
//	       (else 1 input); bits 2-3 zero
//	1      connection tag
//	2..3   First: tick of the first input, low 16 bits LE (the receiver
//	       expands it near its own tick, ExpandTick)
//	4..    Ack.Next - First as a zigzag varint (server ticks held)
//	       Ack.Mask varint, if flag bit 0
//	       Count varint (0..MaxInputsPerMessage), if flag bit 1
//	       Payload: Count input deltas in one bit stream, padded with zero
//	       bits to a byte (see AppendInputs); it runs to the datagram's end.
//
// The first input of the payload is coded against the all-zero input with a
// fresh context (a key frame), each later one against the one before, so
// that every datagram decodes on its own whatever was lost before it.
type ClientInputs struct {
	// Tag is the connection tag.
	Tag uint8
	// First is the tick of the first input.
	First uint32
	// Ack says which server ticks the client holds.
	Ack reliable.Ack
	// Count is the number of inputs: ticks First .. First+Count-1.
	Count int
	// Payload is the coded inputs (aliases the parsed datagram).
	Payload []byte
}

// MaxInputsPerMessage bounds ClientInputs.Count.
const MaxInputsPerMessage = 1024

// Length returns the encoded length.
func (m *ClientInputs) Length() int {
	n := shortHeaderLen + 2 + ackRelLen(m.Ack, m.First) + len(m.Payload)
	if m.Count != 1 {
		n += uvarintLen(uint64(m.Count))
	}
	return n
}

// Append appends the encoding to b.
func (m *ClientInputs) Append(b []byte) []byte {
	var flags byte
	if m.Ack.Mask != 0 {
		flags |= 1
	}
	if m.Count != 1 {
		flags |= 2
	}
	b = append(b, byte(TypeClientInputs)<<4|flags, m.Tag, byte(m.First), byte(m.First>>8))
	b = appendAckRel(b, m.Ack, m.First)
	if m.Count != 1 {
		b = appendUvarint(b, uint64(m.Count))
	}
	return append(b, m.Payload...)
}

// ParseClientInputs parses a ClientInputs datagram (all of b), expanding
// its 16-bit tick near the receiver's tick near. The payload is not decoded
// (DecodeInputs does that).
func ParseClientInputs(b []byte, near uint32) (ClientInputs, int, error) {
	var m ClientInputs
	flags, tag, err := parseShortHeader(b, TypeClientInputs)
	if err != nil {
		return m, 0, err
	}
	if flags&^3 != 0 {
		return m, 0, errMalformedf("client inputs flags %#x", flags)
	}
	if len(b) < shortHeaderLen+2 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Tag = tag
	m.First = ExpandTick(uint16(b[2])|uint16(b[3])<<8, near)
	p := shortHeaderLen + 2
	if m.Ack, err = readAckRel(b, &p, m.First, flags&1 != 0); err != nil {
		return m, 0, err
	}
	m.Count = 1
	if flags&2 != 0 {
		c, err := readUvarint(b, &p)
		if err != nil {
			return m, 0, err
		}
		if c == 1 {
			return m, 0, errMalformedf("client inputs count 1 given explicitly")
		}
		if c > MaxInputsPerMessage {
			return m, 0, fmt.Errorf("%w: %d inputs in one message", ErrTooLarge, c)
		}
		m.Count = int(c)
	}
	m.Payload = b[p:]
	if m.Count > 0 && len(m.Payload) == 0 {
		return m, 0, io.ErrUnexpectedEOF
	}
	if m.Count == 0 && len(m.Payload) != 0 {
		return m, 0, errMalformedf("client inputs without inputs has a payload")
	}
	return m, len(b), nil
}
