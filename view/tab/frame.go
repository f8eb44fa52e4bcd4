// Package tab is what a browser tab's two threads say to each other: the
// page's thread (view/page: the RTCPeerConnection and its signaling, the
// canvas, the keys) and the dedicated Worker that runs the match
// (view/page/worker: the client, the game's Step, the rollbacks and the
// data channel's traffic). Frame is what the Worker hands the page to
// draw, encoded into one transferable buffer; Input goes the other way.
// The js/wasm files hold the Worker's side of a data channel (Conn) and
// the message kinds both programs post.
package tab

import (
	"encoding/binary"
	"errors"
	"math"
)

// Frame is what the page draws of the match its Worker runs: the game's
// draw list of the predicted world (the game's view drew it from
// Session.ViewBetween's copies at At, any game the same way) and the
// HUD's figures. Alpha is ViewBetween's at At.
type Frame struct {
	// At is when Alpha was taken, in ms since the Unix epoch as the
	// browser counts it (performance.timeOrigin + performance.now()),
	// which a page and its Worker share.
	At float64
	// Alpha is the fraction of the way from the previous tick to the
	// predicted one at At, in [0, 1].
	Alpha float64
	// Period is the tick's length in ms.
	Period float64
	// Width and Height are the game's canvas in pixels (the HUD is
	// above it); List is the game's draw list for it (draw.List's
	// binary form), with the sounds of the effects predicted since the
	// last frame.
	Width, Height uint16
	List          []byte
	// Me is this tab's player id, or -1 (a spectator, or before the
	// welcome).
	Me int32
	// HUD figures: the room, the ping the Worker's client measures (ms),
	// the predicted and verified ticks, rollbacks and resyncs, the
	// players in the match.
	Room                string
	Players             uint32
	Ping                float64
	Predicted, Verified uint32
	Rollbacks, Resyncs  uint32
	// The net graph's running totals (NetGraph): ticks rolled back
	// (simulated again) and datagram bytes received and sent.
	RolledBack, BytesIn, BytesOut uint32
	// Spectating says the seat is a spectator's, Delay (ms) how far
	// behind the match it watches.
	Spectating bool
	Delay      float64
	// Done says the player stopped; Stopped is why, when it failed.
	Done    bool
	Stopped string
	// Waiting is the stall's "Waiting for: NAME…" line, or "".
	Waiting string
}

// errShort says a frame's encoding ended early.
var errShort = errors.New("tab: frame truncated")

// AppendBinary appends f's encoding to b.
func (f *Frame) AppendBinary(b []byte) []byte {
	le := binary.LittleEndian
	for _, v := range []float64{f.At, f.Alpha, f.Period, f.Ping, f.Delay} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	for _, v := range []uint32{uint32(f.Me), f.Predicted, f.Verified, f.Rollbacks, f.Resyncs, f.RolledBack, f.BytesIn, f.BytesOut, f.Players} {
		b = le.AppendUint32(b, v)
	}
	flags := byte(0)
	if f.Spectating {
		flags |= 1
	}
	if f.Done {
		flags |= 2
	}
	b = append(b, flags)
	for _, s := range []string{f.Room, f.Stopped, f.Waiting} {
		b = le.AppendUint16(b, uint16(min(len(s), math.MaxUint16)))
		b = append(b, s[:min(len(s), math.MaxUint16)]...)
	}
	b = le.AppendUint16(b, f.Width)
	b = le.AppendUint16(b, f.Height)
	b = le.AppendUint32(b, uint32(len(f.List)))
	return append(b, f.List...)
}

// reader reads a frame's encoding.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = errShort
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) f64() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(r.take(8)))
}

// UnmarshalBinary decodes a frame AppendBinary encoded into f, reusing
// f's List (copied out of b).
func (f *Frame) UnmarshalBinary(b []byte) error {
	r := &reader{b: b}
	for _, v := range []*float64{&f.At, &f.Alpha, &f.Period, &f.Ping, &f.Delay} {
		*v = r.f64()
	}
	var me uint32
	for _, v := range []*uint32{&me, &f.Predicted, &f.Verified, &f.Rollbacks, &f.Resyncs, &f.RolledBack, &f.BytesIn, &f.BytesOut, &f.Players} {
		*v = r.u32()
	}
	f.Me = int32(me)
	flags := r.take(1)[0]
	f.Spectating, f.Done = flags&1 != 0, flags&2 != 0
	for _, s := range []*string{&f.Room, &f.Stopped, &f.Waiting} {
		*s = string(r.take(int(r.u16())))
	}
	f.Width, f.Height = r.u16(), r.u16()
	n := r.u32()
	if uint64(n) > uint64(len(r.b)) {
		return errShort
	}
	list := r.take(int(n))
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return errors.New("tab: frame: trailing bytes")
	}
	f.List = append(f.List[:0], list...)
	return nil
}

// AlphaAt returns the frame's alpha moved on to now (ms, as At): at the
// tick rate, never past 1.
func (f *Frame) AlphaAt(now float64) float64 {
	a := f.Alpha
	if a < 1 && now > f.At && f.Period > 0 {
		a = min(1, a+(now-f.At)/f.Period)
	}
	return a
}
