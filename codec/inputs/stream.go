package inputs

import (
	"fmt"
	"io"
)

// padLen is how long a payload Decoder copies into its zero-padded buffer
// (a datagram's worth, transport.MaxDatagram; this package sits below
// transport and does not import it). A longer payload is read in place,
// with the same results.
const padLen = 1200

// AppendInputs appends the payload of a codec.ClientInputs carrying
// inputs (each a sanitized packed input) to b: their deltas in one bit
// stream, the first against the all-zero input with a fresh State, padded
// with zero bits to a byte. It
// does not allocate beyond b's growth.
func (s *Schema) AppendInputs(b []byte, inputs [][]byte) []byte {
	var st State
	s.ResetState(&st, nil)
	var w BitWriter
	w.Reset(b)
	for _, in := range inputs {
		s.EncodeDelta(&w, &st, in)
	}
	return w.Bytes()
}

// DecodeInputs decodes an AppendInputs payload of count inputs, sanitizing
// each, and calls fn with the index (0 for the first input) and the packed input
// (valid only during the call). It stops at the first error: a truncated or
// malformed payload, nonzero padding or trailing bytes, an input that fails
// Sanitize, or fn's error. Inputs already passed to fn stay passed, so a
// caller that must take all or nothing collects first.
//
// d holds the decoding state and the input buffer; a caller that keeps one
// Decoder (a field of a longer-lived value) and a fn that does not
// itself allocate decodes without allocating. A nil d allocates a new one.
// Decoder used directly does the same without the callback.
func (s *Schema) DecodeInputs(d *Decoder, payload []byte, count int, fn func(i int, in []byte) error) error {
	if d == nil {
		d = new(Decoder)
	}
	d.Reset(s, payload, count)
	for d.Next() {
		if err := fn(d.Index(), d.Input()); err != nil {
			return err
		}
	}
	return d.Err()
}

// Decoder decodes an AppendInputs payload one input at a time without
// allocating: the decoding state and the buffer the inputs are returned in
// are part of the value, so keep one (per receiving goroutine) and Reset it
// for each datagram. The zero value is ready for Reset.
//
//	d.Reset(schema, m.Payload, m.Count)
//	for d.Next() {
//		take(m.First+uint32(d.Index()), d.Input())
//	}
//	if err := d.Err(); err != nil { ... }
type Decoder struct {
	s     *Schema
	st    State
	r     BitReader
	buf   [MaxSize]byte
	i     int // index of the input Input returns; -1 before the first
	count int
	err   error
	done  bool
	// The payload copied with 8 zero bytes after it, so that every bit
	// read takes BitReader's fast path; limit is the payload's end in
	// bits, past which a read is a truncation. Payloads too long for pad
	// are read in place (limit is then the end of r's buffer).
	pad   [padLen + 8]byte
	limit uint
}

// Reset starts decoding payload, which holds count inputs of schema s.
func (d *Decoder) Reset(s *Schema, payload []byte, count int) {
	d.s = s
	s.ResetState(&d.st, nil)
	if n := len(payload); n <= padLen {
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
func (d *Decoder) Next() bool {
	if d.done {
		return false
	}
	if d.i+1 >= d.count {
		d.done = true
		if rem := int(d.limit) - int(d.r.pos); rem >= 8 {
			d.err = fmt.Errorf("%w: %d trailing bytes after inputs", ErrMalformed, rem/8)
		} else if rem > 0 && d.r.ReadBits(uint(rem)) != 0 {
			d.err = fmt.Errorf("%w: nonzero padding after inputs", ErrMalformed)
		}
		return false
	}
	d.i++
	err := d.s.DecodeDeltaFast(&d.r, &d.st)
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

// Index returns the index of the input Next last decoded (0 for the
// first).
func (d *Decoder) Index() int { return d.i }

// Input returns the input Next last decoded: Schema.Size() bytes, valid
// until the next call of Next or Reset.
func (d *Decoder) Input() []byte { return d.buf[:d.s.size] }

// Err returns the error that stopped Next, or nil once every input and the
// padding after them decoded cleanly (or while decoding is under way).
func (d *Decoder) Err() error { return d.err }
