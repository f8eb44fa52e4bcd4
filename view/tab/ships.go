package tab

import (
	"encoding/binary"
	"math"
)

// Arena is what a frame of a ships match (games/ships) draws: the
// predicted world's ships and shots, each with its place at the tick
// before, and the hits since the last frame. A sand frame's is empty.
type Arena struct {
	Ships []ShipView
	Shots []ShotView
	// Hits are the players whose ship a shot hit in a prediction since
	// the last frame (for the sound: once per hit, however often a
	// rollback simulates it again).
	Hits []uint16
}

// ShipView is a ship as a frame draws it: between (PX, PY) at angle
// PAngle, its place at the tick before the predicted one, and (X, Y) at
// Angle, its predicted place. Places are fixed.Num's raw values (1/65536
// of a unit), angles too (radians).
type ShipView struct {
	Player                      uint16
	X, Y, PX, PY, Angle, PAngle int32
	Score, Deaths               uint16
	Health, Flash, Respawn      uint8
}

// ShotView is a shot as a frame draws it: between (PX, PY) and (X, Y),
// as ShipView's places; a shot fired in the predicted tick has both
// places the same.
type ShotView struct {
	Owner        uint16
	X, Y, PX, PY int32
}

// appendBinary appends a's encoding to b.
func (a *Arena) appendBinary(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint16(b, uint16(len(a.Ships)))
	for _, s := range a.Ships {
		b = le.AppendUint16(b, s.Player)
		for _, v := range []int32{s.X, s.Y, s.PX, s.PY, s.Angle, s.PAngle} {
			b = le.AppendUint32(b, uint32(v))
		}
		b = le.AppendUint16(b, s.Score)
		b = le.AppendUint16(b, s.Deaths)
		b = append(b, s.Health, s.Flash, s.Respawn)
	}
	b = le.AppendUint16(b, uint16(len(a.Shots)))
	for _, s := range a.Shots {
		b = le.AppendUint16(b, s.Owner)
		for _, v := range []int32{s.X, s.Y, s.PX, s.PY} {
			b = le.AppendUint32(b, uint32(v))
		}
	}
	b = le.AppendUint16(b, uint16(len(a.Hits)))
	for _, h := range a.Hits {
		b = le.AppendUint16(b, h)
	}
	return b
}

// read decodes appendBinary's encoding from r into a, reusing a's
// slices.
func (a *Arena) read(r *reader) {
	a.Ships = a.Ships[:0]
	for n := r.u16(); n > 0 && r.err == nil; n-- {
		s := ShipView{Player: r.u16()}
		for _, v := range []*int32{&s.X, &s.Y, &s.PX, &s.PY, &s.Angle, &s.PAngle} {
			*v = int32(r.u32())
		}
		s.Score, s.Deaths = r.u16(), r.u16()
		t := r.take(3)
		s.Health, s.Flash, s.Respawn = t[0], t[1], t[2]
		a.Ships = append(a.Ships, s)
	}
	a.Shots = a.Shots[:0]
	for n := r.u16(); n > 0 && r.err == nil; n-- {
		s := ShotView{Owner: r.u16()}
		for _, v := range []*int32{&s.X, &s.Y, &s.PX, &s.PY} {
			*v = int32(r.u32())
		}
		a.Shots = append(a.Shots, s)
	}
	a.Hits = a.Hits[:0]
	for n := r.u16(); n > 0 && r.err == nil; n-- {
		a.Hits = append(a.Hits, r.u16())
	}
}

// ShipsInput is a ships player's controls as the page reads them
// (games/ships' Input: Turn -1..1, Thrust, Fire), packed for a message
// to the Worker.
type ShipsInput struct {
	Turn         int8
	Thrust, Fire bool
}

// Pack returns in as one number: Turn+1 in bits 0–1, Thrust bit 2, Fire
// bit 3.
func (in ShipsInput) Pack() int {
	n := int(uint8(in.Turn+1) & 3)
	if in.Thrust {
		n |= 1 << 2
	}
	if in.Fire {
		n |= 1 << 3
	}
	return n
}

// UnpackShips is Pack's inverse.
func UnpackShips(n int) ShipsInput {
	return ShipsInput{Turn: int8(n&3) - 1, Thrust: n>>2&1 != 0, Fire: n>>3&1 != 0}
}

// The ships arena as the page and the window draw it: games/ships'
// sizes (in world units; view/seat's tests check them against the game),
// drawn at ShipsScale pixels a unit in a ShipsSide-pixel square.
const (
	ShipsHalfArena = 600
	ShipsRadius    = 12
	ShipsMaxHealth = 100
	ShipsRespawn   = 120
	ShipsScale     = 0.5
	ShipsSide      = 2 * ShipsHalfArena * ShipsScale
)

// raw is a fixed.Num raw value's units (1/65536).
const raw = 1 << 16

// At returns the ship's place (units) and heading (radians) alpha of the
// way from the tick before to the predicted one, turning the short way
// across ±π.
func (s *ShipView) At(alpha float64) (x, y, angle float64) {
	d := float64(s.Angle-s.PAngle) / raw
	if d > math.Pi {
		d -= 2 * math.Pi
	} else if d < -math.Pi {
		d += 2 * math.Pi
	}
	return between(s.PX, s.X, alpha), between(s.PY, s.Y, alpha), float64(s.PAngle)/raw + alpha*d
}

// At returns the shot's place (units) alpha of the way from the tick
// before to the predicted one.
func (s *ShotView) At(alpha float64) (x, y float64) {
	return between(s.PX, s.X, alpha), between(s.PY, s.Y, alpha)
}

// between returns the raw a moved alpha of the way to b, in units.
func between(a, b int32, alpha float64) float64 {
	return (float64(a) + alpha*float64(b-a)) / raw
}

// ShipsPixel returns where the arena's point (x, y) (units, Y up) is in
// a view whose arena starts top pixels down: X right, Y down.
func ShipsPixel(x, y float64, top int) (float64, float64) {
	return (x + ShipsHalfArena) * ShipsScale, (ShipsHalfArena-y)*ShipsScale + float64(top)
}
