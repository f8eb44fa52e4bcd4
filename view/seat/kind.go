package seat

import (
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/world"
)

// Kind is a game as the view plays it, whichever game: how to make it of
// a seat's Config, how it is drawn (a draw list), how the engine's
// controls become its input, its preferred canvas, the sounds of its
// effects and its scripted bot. The page's Worker and the window play
// any Kind the same way (Played).
type Kind[I comparable] struct {
	// Name is the game's name (--game, ?game=).
	Name string
	// New makes the game of a seat's Config (its Side and Rate).
	New func(cfg Config) (rewind.Game[I], error)
	// Draw draws what v shows into l.
	Draw func(g rewind.Game[I], v rewind.View, l *draw.List)
	// Control returns the input of controls c, prev being the input the
	// seat sent last.
	Control func(g rewind.Game[I], v rewind.View, c draw.Controls, prev I) I
	// Size returns the canvas the game would like (nil: 512×512).
	Size func(g rewind.Game[I]) (w, h int)
	// Sound returns the sound of an effect, if it has one (nil: none).
	Sound func(e rewind.Effect) (draw.Sound, bool)
	// Bot is the scripted bot's input (?input=scripted), nil: none.
	Bot func(me rewind.PlayerID, tick uint32) I
	// Hidden says the game hides information from its players
	// (games.Entry.Hidden): a tick it mispredicted and repaired is
	// verified once repaired, not a desync (docs/scenes.md).
	Hidden bool
}

// Played is a seat in a match of a Kind.
type Played[I comparable] struct {
	*Seat[I, rewind.Game[I]]
	kind Kind[I]
	fx   []rewind.EffectEvent
}

// OpenKind starts a seat of kind k with connect (as Open).
func OpenKind[I comparable](k Kind[I], cfg Config, connect ConnectorOf[I]) (*Played[I], error) {
	g, err := k.New(cfg)
	if err != nil {
		return nil, err
	}
	s, err := Open(g, g, cfg, connect)
	if err != nil {
		return nil, err
	}
	s.hidden = k.Hidden // before any Tick: the callbacks run in Update
	return &Played[I]{Seat: s, kind: k}, nil
}

// Kind returns the seat's kind.
func (p *Played[I]) Kind() Kind[I] { return p.kind }

// Played returns the game the match plays: the host's (Config.HostSettings)
// once welcomed, else the seat's own.
func (p *Played[I]) Played() rewind.Game[I] {
	if g := p.Session().Game(); g != nil {
		return g
	}
	return p.Game()
}

// Me returns the viewer's player id, or -1 (a spectator, or before the
// welcome).
func (p *Played[I]) Me() int {
	if id, ok := p.Session().Player(); ok && !p.Spectating() {
		return int(id)
	}
	return -1
}

// Size returns the canvas the game would like.
func (p *Played[I]) Size() (w, h int) {
	if p.kind.Size == nil {
		return 512, 512
	}
	return p.kind.Size(p.Played())
}

// Welcomed says whether the server has welcomed the seat.
func (p *Played[I]) Welcomed() bool {
	_, ok := p.Session().Player()
	return ok
}

// Draw draws the predicted world between the last two ticks at now's
// fraction into l (reset first) on a w×h canvas, and returns that
// fraction.
func (p *Played[I]) Draw(now time.Time, w, h int, l *draw.List) (alpha float64) {
	l.Reset()
	g, me := p.Played(), p.Me()
	p.Session().ViewBetween(now, func(prev, cur *world.World, a float64) {
		alpha = a
		if p.kind.Draw != nil {
			p.kind.Draw(g, rewind.View{Prev: prev, Cur: cur, Alpha: a, Me: me, Width: w, Height: h}, l)
		}
	})
	return alpha
}

// Control sets the seat's input from controls c (a spectator's seat
// sends none).
func (p *Played[I]) Control(now time.Time, c draw.Controls) {
	if p.Spectating() || p.kind.Control == nil {
		return
	}
	g, me := p.Played(), p.Me()
	p.mu.Lock()
	prev := p.input
	p.mu.Unlock()
	v := rewind.View{Alpha: 1, Me: me, Width: int(c.Width), Height: int(c.Height)}
	in, ok := prev, false
	p.Session().ViewBetween(now, func(_, cur *world.World, _ float64) {
		v.Prev, v.Cur = cur, cur
		in, ok = p.kind.Control(g, v, c, prev), true
	})
	if !ok { // before the first world: with none
		in = p.kind.Control(g, v, c, prev)
	}
	p.SetInput(in)
}

// Script makes the session play the kind's scripted bot for its player
// id instead of the controls (?input=scripted).
func (p *Played[I]) Script() {
	if p.kind.Bot == nil {
		return
	}
	s := p.Session()
	s.SetInputFunc(func(t uint32) I {
		id, _ := s.Player() // lock-free: the input function runs inside Update
		return p.kind.Bot(id, t)
	})
}

// Sounds appends the sounds of the effects predicted since the last call
// to dst (each once, however often a rollback simulates it again).
func (p *Played[I]) Sounds(dst []draw.Sound) []draw.Sound {
	p.fx = p.Session().Effects(p.fx[:0])
	if p.kind.Sound == nil {
		return dst
	}
	for _, e := range p.fx {
		if e.Status != rewind.EffectPredicted {
			continue
		}
		if s, ok := p.kind.Sound(e.Effect); ok {
			dst = append(dst, s)
		}
	}
	return dst
}
