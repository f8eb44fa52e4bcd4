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

// Avatar is an avatar as a frame draws it: between (PX, PY), its place
// at the tick before the predicted one, and (X, Y), its predicted place,
// in 1/256ths of a cell.
type Avatar struct {
	Player       uint16
	X, Y, PX, PY int32
}

// Frame is what the page draws of the match its Worker runs: the
// predicted world's cells and avatars (Session.ViewBetween's copies) and
// the HUD's figures. Alpha is ViewBetween's at At; the page moves it on
// at the tick rate to the instant it draws.
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
	// Side is the grid's side; Cells holds Side×Side materials, row by
	// row.
	Side  uint16
	Cells []byte
	// Avatars are the predicted world's avatars.
	Avatars []Avatar
	// Players is the predicted world's player count.
	Players uint32
	// Me is this tab's player id, or -1 (a spectator, or before the
	// welcome).
	Me int32
	// Pours are the players whose pour started in a prediction since
	// the last frame (for the flash and the sound).
	Pours []uint16
	// HUD figures: the room, the ping the Worker's client measures (ms),
	// the predicted and verified ticks, rollbacks and resyncs.
	Room                string
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
	// Arena is a ships match's ships and shots (empty for sand).
	Arena Arena
}

// errShort says a frame's encoding ended early.
var errShort = errors.New("tab: frame truncated")

// AppendBinary appends f's encoding to b.
func (f *Frame) AppendBinary(b []byte) []byte {
	le := binary.LittleEndian
	for _, v := range []float64{f.At, f.Alpha, f.Period, f.Ping, f.Delay} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	for _, v := range []uint32{f.Players, uint32(f.Me), f.Predicted, f.Verified, f.Rollbacks, f.Resyncs, f.RolledBack, f.BytesIn, f.BytesOut} {
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
	b = le.AppendUint16(b, uint16(len(f.Pours)))
	for _, p := range f.Pours {
		b = le.AppendUint16(b, p)
	}
	b = le.AppendUint16(b, uint16(len(f.Avatars)))
	for _, a := range f.Avatars {
		b = le.AppendUint16(b, a.Player)
		for _, v := range []int32{a.X, a.Y, a.PX, a.PY} {
			b = le.AppendUint32(b, uint32(v))
		}
	}
	b = le.AppendUint16(b, f.Side)
	b = append(b, f.Cells...)
	return f.Arena.appendBinary(b)
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
// f's slices (Cells is copied out of b).
func (f *Frame) UnmarshalBinary(b []byte) error {
	r := &reader{b: b}
	for _, v := range []*float64{&f.At, &f.Alpha, &f.Period, &f.Ping, &f.Delay} {
		*v = r.f64()
	}
	var me uint32
	for _, v := range []*uint32{&f.Players, &me, &f.Predicted, &f.Verified, &f.Rollbacks, &f.Resyncs, &f.RolledBack, &f.BytesIn, &f.BytesOut} {
		*v = r.u32()
	}
	f.Me = int32(me)
	flags := r.take(1)[0]
	f.Spectating, f.Done = flags&1 != 0, flags&2 != 0
	for _, s := range []*string{&f.Room, &f.Stopped, &f.Waiting} {
		*s = string(r.take(int(r.u16())))
	}
	f.Pours = f.Pours[:0]
	for n := r.u16(); n > 0 && r.err == nil; n-- {
		f.Pours = append(f.Pours, r.u16())
	}
	f.Avatars = f.Avatars[:0]
	for n := r.u16(); n > 0 && r.err == nil; n-- {
		a := Avatar{Player: r.u16()}
		for _, v := range []*int32{&a.X, &a.Y, &a.PX, &a.PY} {
			*v = int32(r.u32())
		}
		f.Avatars = append(f.Avatars, a)
	}
	f.Side = r.u16()
	cells := r.take(int(f.Side) * int(f.Side))
	f.Arena.read(r)
	if r.err != nil {
		return r.err
	}
	f.Cells = append(f.Cells[:0], cells...)
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

// Input is a player's controls as the page reads them, packed for a
// message to the Worker: MoveX and MoveY in -1..1, Pour, Material 0–3.
type Input struct {
	MoveX, MoveY int8
	Pour         bool
	Material     uint8
}

// Pack returns in as one number (for a postMessage).
func (in Input) Pack() int {
	n := int(uint8(in.MoveX+1)) | int(uint8(in.MoveY+1))<<2 | int(in.Material&3)<<5
	if in.Pour {
		n |= 1 << 4
	}
	return n
}

// UnpackInput is Pack's inverse.
func UnpackInput(n int) Input {
	return Input{MoveX: int8(n&3) - 1, MoveY: int8(n>>2&3) - 1, Pour: n>>4&1 != 0, Material: uint8(n >> 5 & 3)}
}
