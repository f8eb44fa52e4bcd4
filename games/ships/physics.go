package ships

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/fixed"
	"github.com/rewindnet/rewind/world"
)

// drag is what of a ship's velocity remains after a tick: 63/64.
var drag = fixed.FromFrac(63, 64)

// fly runs rule 2 for one ship: respawn, turn, thrust, drag, move, walls,
// fire.
func (g *Game) fly(w *world.World, t *rewind.Tick[Input], s *Ship, st *State) {
	if s.Flash > 0 {
		s.Flash--
	}
	if s.Health == 0 {
		if s.Respawn--; s.Respawn == 0 {
			spawn(s)
		}
		return
	}
	var in Input
	if int(s.Player) < len(t.Inputs) {
		in = t.Inputs[s.Player]
	}
	s.Angle = wrapAngle(s.Angle.Add(TurnRate.MulInt(int64(in.Turn))))
	dir := fixed.FromAngle(s.Angle)
	if in.Thrust {
		s.Vel = s.Vel.Add(dir.Scale(Thrust))
	}
	s.Vel = s.Vel.Scale(drag)
	if s.Vel.Length() > MaxSpeed {
		s.Vel = s.Vel.Normalize().Scale(MaxSpeed)
	}
	s.Pos = s.Pos.Add(s.Vel)
	s.Pos.X, s.Vel.X = bounce(s.Pos.X, s.Vel.X)
	s.Pos.Y, s.Vel.Y = bounce(s.Pos.Y, s.Vel.Y)
	if s.Cooldown > 0 {
		s.Cooldown--
	}
	if in.Fire && s.Cooldown == 0 && g.shots.Len(w) < MaxShots {
		s.Cooldown = Cooldown
		shot := Shot{
			Pos:   s.Pos.Add(dir.Scale(ShipRadius.Add(ShotRadius))),
			Vel:   s.Vel.Add(dir.Scale(ShotSpeed)),
			Fired: t.Number,
			Owner: s.Player,
		}
		_, _ = g.shots.Add(w, shot)
		st.Shots++
		t.Emit(rewind.Effect{Kind: EffectShot, Args: [rewind.EffectArgs]int32{int32(s.Player), int32(t.Number)}})
	}
}

// bounce keeps a ship's coordinate p inside the walls: past one, it is put
// back at the wall and its velocity v along the axis is reversed and
// halved.
func bounce(p, v fixed.Num) (fixed.Num, fixed.Num) {
	lim := HalfArena.Sub(ShipRadius)
	switch {
	case p > lim:
		return lim, v.Neg().Div(fixed.FromInt(2))
	case p < lim.Neg():
		return lim.Neg(), v.Neg().Div(fixed.FromInt(2))
	}
	return p, v
}

// collide runs rule 3: every pair of live ships that overlap, in table
// order, is pushed apart and exchanges velocity along the line between
// them.
func collide(ships []Ship) {
	minD := ShipRadius.MulInt(2)
	for i := range ships {
		a := &ships[i]
		if a.Health == 0 {
			continue
		}
		for j := i + 1; j < len(ships); j++ {
			b := &ships[j]
			if b.Health == 0 {
				continue
			}
			d := b.Pos.Sub(a.Pos)
			if d.X.Abs() >= minD || d.Y.Abs() >= minD {
				continue
			}
			dist := d.Length()
			if dist >= minD {
				continue
			}
			n := fixed.V(fixed.One, 0) // ships on one point part along X
			if dist > 0 {
				n = d.Div(dist)
			}
			push := n.Scale(minD.Sub(dist).Div(fixed.FromInt(2)))
			a.Pos, b.Pos = a.Pos.Sub(push), b.Pos.Add(push)
			an, bn := a.Vel.Dot(n), b.Vel.Dot(n)
			a.Vel = a.Vel.Add(n.Scale(bn.Sub(an)))
			b.Vel = b.Vel.Add(n.Scale(an.Sub(bn)))
		}
	}
}

// moveShots runs rule 4.
func (g *Game) moveShots(w *world.World, t *rewind.Tick[Input], ships []Ship, st *State) {
	reach := ShipRadius.Add(ShotRadius)
	for i := 0; i < g.shots.Len(w); {
		sh := g.shots.At(w, i)
		sh.Pos = sh.Pos.Add(sh.Vel)
		sh.Age++
		gone := sh.Age >= ShotLife || sh.Pos.X.Abs() > HalfArena || sh.Pos.Y.Abs() > HalfArena
		for k := range ships {
			s := &ships[k]
			if gone || s.Health == 0 || s.Player == sh.Owner {
				continue
			}
			d := s.Pos.Sub(sh.Pos)
			if d.X.Abs() < reach && d.Y.Abs() < reach && d.Length() < reach {
				hit(t, s, sh, ships, st)
				gone = true
			}
		}
		if gone {
			g.shots.Remove(w, i)
			continue
		}
		i++
	}
}

// hit applies a shot's hit on ship s: damage, flash, and a kill at 0
// health (the shooter's ship, if it is still in the match, scores).
func hit(t *rewind.Tick[Input], s *Ship, sh *Shot, ships []Ship, st *State) {
	st.Hits++
	args := [rewind.EffectArgs]int32{int32(s.Player), int32(sh.Owner), int32(sh.Fired)}
	t.Emit(rewind.Effect{Kind: EffectHit, Args: args})
	s.Flash = 10
	if s.Health > ShotDamage {
		s.Health -= ShotDamage
		return
	}
	s.Health, s.Respawn, s.Vel = 0, RespawnTicks, fixed.Vec{}
	s.Deaths++
	st.Kills++
	t.Emit(rewind.Effect{Kind: EffectKill, Args: args})
	for k := range ships {
		if ships[k].Player == sh.Owner {
			ships[k].Score++
		}
	}
}

// Bot returns a scripted input for player p at tick t: every 40 ticks a
// new turn direction and thrust from a hash of the player and the period,
// firing in bursts.
func Bot(p rewind.PlayerID, t uint32) Input {
	h := (t/40 + uint32(p)*7919) * 2654435761
	h ^= h >> 15
	h *= 2246822519
	h ^= h >> 13
	return Input{
		Turn:   int8(h%3) - 1,
		Thrust: h>>4&3 != 0,
		Fire:   (t+uint32(p)*5)%40 < 20,
	}
}

// Rated is a ships game at another tick rate than rewind's default.
type Rated struct {
	*Game
	// Rate is the tick rate in ticks per second.
	Rate int
}

// TickRate implements rewind's TickRater.
func (r Rated) TickRate() int { return r.Rate }
