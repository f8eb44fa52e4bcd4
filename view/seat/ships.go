package seat

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/view/tab"
	"github.com/rewindnet/rewind/world"
)

// Ships is a seat in a ships match (games/ships).
type Ships = Seat[ships.Input, *ships.Game]

// NewShips starts a ships session at rate ticks a second (0: rewind's
// default; it must be the host's) with connect, which the seat owns
// from then on (Close ends it). Config.Side is not used.
func NewShips(cfg Config, rate int, connect ConnectorOf[ships.Input]) (*Ships, error) {
	sg := ships.New()
	var g rewind.Game[ships.Input] = sg
	if rate > 0 && rate != rewind.DefaultTickRate {
		g = ships.Rated{Game: sg, Rate: rate}
	}
	return Open(g, sg, cfg, connect)
}

// FillArena sets a to the ships and shots of cur, each with its place
// in prev (a shot is the same shot in both worlds when its owner and the
// tick it was fired are; a ship that died or came back has no place
// before), the frame the window and the page draw. a's Hits are left as
// they are.
func FillArena(a *tab.Arena, g *ships.Game, prev, cur *world.World) {
	before := g.Ships(prev)
	a.Ships = a.Ships[:0]
	for _, s := range g.Ships(cur) {
		v := tab.ShipView{Player: uint16(s.Player), X: int32(s.Pos.X), Y: int32(s.Pos.Y), Angle: int32(s.Angle),
			Score: s.Score, Deaths: s.Deaths, Health: s.Health, Flash: s.Flash, Respawn: min(s.Respawn, 255)}
		v.PX, v.PY, v.PAngle = v.X, v.Y, v.Angle
		for _, b := range before {
			if b.Player == s.Player && b.Health > 0 && s.Health > 0 {
				v.PX, v.PY, v.PAngle = int32(b.Pos.X), int32(b.Pos.Y), int32(b.Angle)
				break
			}
		}
		a.Ships = append(a.Ships, v)
	}
	shotsBefore := g.Shots(prev)
	a.Shots = a.Shots[:0]
	for _, s := range g.Shots(cur) {
		v := tab.ShotView{Owner: uint16(s.Owner), X: int32(s.Pos.X), Y: int32(s.Pos.Y)}
		v.PX, v.PY = v.X, v.Y
		for _, b := range shotsBefore {
			if b.Owner == s.Owner && b.Fired == s.Fired {
				v.PX, v.PY = int32(b.Pos.X), int32(b.Pos.Y)
				break
			}
		}
		a.Shots = append(a.Shots, v)
	}
}

// ShipsInput returns the game's input of the page's controls.
func ShipsInput(in tab.ShipsInput) ships.Input {
	return ships.Input{Turn: in.Turn, Thrust: in.Thrust, Fire: in.Fire}
}
