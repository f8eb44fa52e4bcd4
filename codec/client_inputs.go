package codec

import (
	"fmt"
	"github.com/rewindnet/rewind/codec/reliable"
	"io"
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

// AppendInputs appends the payload of a ClientInputs carrying inputs (each
// a sanitized packed input) to b, coded as described at ClientInputs. It
// does not allocate beyond b's growth.
func (s *Schema) AppendInputs(b []byte, inputs [][]byte) []byte {
	var st InputState
	s.ResetState(&st, nil)
	var w BitWriter
	w.Reset(b)
	for _, in := range inputs {
		s.EncodeDelta(&w, &st, in)
	}
	return w.Bytes()
}

// DecodeInputs decodes a ClientInputs payload of count inputs, sanitizing
// each, and calls fn with the index (0 for tick First) and the packed input
// (valid only during the call). It stops at the first error: a truncated or
// malformed payload, nonzero padding or trailing bytes, an input that fails
// Sanitize, or fn's error. Inputs already passed to fn stay passed, so a
// caller that must take all or nothing collects first.
//
// d holds the decoding state and the input buffer; a caller that keeps one
// InputsDecoder (a field of a longer-lived value) and a fn that does not
// itself allocate decodes without allocating. A nil d allocates a new one.
// InputsDecoder used directly does the same without the callback.
func (s *Schema) DecodeInputs(d *InputsDecoder, payload []byte, count int, fn func(i int, in []byte) error) error {
	if d == nil {
		d = new(InputsDecoder)
	}
	d.Reset(s, payload, count)
	for d.Next() {
		if err := fn(d.Index(), d.Input()); err != nil {
			return err
		}
	}
	return d.Err()
}

// InputsDecoder decodes a ClientInputs payload one input at a time without
// allocating: the decoding state and the buffer the inputs are returned in
// are part of the value, so keep one (per receiving goroutine) and Reset it
// for each datagram. The zero value is ready for Reset.
//
//	d.Reset(schema, m.Payload, m.Count)
//	for d.Next() {
//		take(m.First+uint32(d.Index()), d.Input())
//	}
//	if err := d.Err(); err != nil { ... }
type InputsDecoder struct {
	s     *Schema
	st    InputState
	r     BitReader
	buf   [MaxInputSize]byte
	i     int // index of the input Input returns; -1 before the first
	count int
	err   error
	done  bool
	// The payload copied with 8 zero bytes after it, so that every bit
	// read takes BitReader's fast path; limit is the payload's end in
	// bits, past which a read is a truncation. Payloads too long for pad
	// are read in place (limit is then the end of r's buffer).
	pad   [MaxDatagram + 8]byte
	limit uint
}

// Reset starts decoding payload, which holds count inputs of schema s.
func (d *InputsDecoder) Reset(s *Schema, payload []byte, count int) {
	d.s = s
	s.ResetState(&d.st, nil)
	if n := len(payload); n <= MaxDatagram {
		copy(d.pad[:n], payload)
		d.pad[n], d.pad[n+1], d.pad[n+2], d.pad[n+3] = 0, 0, 0, 0
		d.pad[n+4], d.pad[n+5], d.pad[n+6], d.pad[n+7] = 0, 0, 0, 0
		d.r.Reset(d.pad[:n+8])
	} else {
		d.r.Reset(payload)
	}
	d.limit = uint(len(payload)) * 8
	d.i, d.count, d.err, d.done = -1, count, nil, false
}

// Next decodes and sanitizes the next input and reports whether there is
// one. It returns false after the last input or at the first error (see
// Err): a truncated or malformed payload, an input that fails Sanitize, or
// (after the last input) nonzero padding or trailing bytes. Inputs already
// returned stay returned, so a caller that must take all or nothing collects
// them first.
func (d *InputsDecoder) Next() bool {
	if d.done {
		return false
	}
	if d.i+1 >= d.count {
		d.done = true
		if rem := int(d.limit) - int(d.r.pos); rem >= 8 {
			d.err = errMalformedf("%d trailing bytes after inputs", rem/8)
		} else if rem > 0 && d.r.ReadBits(uint(rem)) != 0 {
			d.err = errMalformedf("nonzero padding after inputs")
		}
		return false
	}
	d.i++
	err := d.s.decodeDelta(&d.r, &d.st)
	if d.r.pos > d.limit {
		// It read into the zero padding: the payload was cut short. (Up
		// to that read the bits were the payload's, and reading in place
		// would have stopped there with this error.)
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		d.done, d.err = true, fmt.Errorf("input %d: %w", d.i, err)
		return false
	}
	in := d.buf[:d.s.size]
	copy(in, d.st.Input())
	if err := d.s.Sanitize(in); err != nil {
		d.done, d.err = true, fmt.Errorf("input %d: %w", d.i, err)
		return false
	}
	return true
}

// Index returns the index of the input Next last decoded (0 for tick
// First).
func (d *InputsDecoder) Index() int { return d.i }

// Input returns the input Next last decoded: Schema.Size() bytes, valid
// until the next call of Next or Reset.
func (d *InputsDecoder) Input() []byte { return d.buf[:d.s.size] }

// Err returns the error that stopped Next, or nil once every input and the
// padding after them decoded cleanly (or while decoding is under way).
func (d *InputsDecoder) Err() error { return d.err }
