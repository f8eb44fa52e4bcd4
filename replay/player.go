package replay

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Player plays a replay file back: it holds the whole replay (its
// worlds, every tick's events, inputs and hash) and a world it simulates
// again tick by tick, checking every tick's hash against the recorded one.
// Seek jumps to the nearest world the recorder wrote at or before the tick
// asked for (the start, or a keyframe: a server's recorder writes one
// every ten seconds) and simulates forward from there. Advance steps it in
// time at its speed, for a view that draws it. It is not safe for
// concurrent use.
type Player[I any] struct {
	g       game.Game[I]
	it      *inputs.Type[I]
	h       Header
	keys    []replayKey  // by tick
	ticks   []replayTick // ticks[i] is tick first+1+i
	first   uint32       // the tick of the first world
	trunc   bool
	w, prev *world.World
	tick    uint32 // the world is the world after this tick
	present []bool
	typed   []I
	events  []game.Event
	tk      game.Tick[I]
	speed   float64
	acc     time.Duration // time owed to the next tick
	stop    uint32        // Advance stops here (0: at Last)
	err     error         // a divergence: nothing steps after it
}

// replayKey is a world the recorder wrote: the start, a keyframe, or a
// client's restart from a newer world.
type replayKey struct {
	tick    uint32
	present []bool
	enc     []byte
}

// replayTick is one recorded tick.
type replayTick struct {
	ok     bool // false: a gap (a client's restart skipped it)
	events []codec.ReplayEvent
	inputs []byte
	hash   uint64
}

// SeekResult says how a Seek got to its tick.
type SeekResult struct {
	// From is the tick of the world the seek started from: a keyframe
	// (or the start), or the current tick when the target was ahead of it
	// and no keyframe nearer.
	From uint32
	// Keyframe is true when the seek loaded a recorded world.
	Keyframe bool
	// Simulated counts the ticks simulated from From to the target.
	Simulated int
}

// ReadHeader reads the header of the replay r holds (without its
// frames): which game, and its settings, play it again.
func ReadHeader(r io.Reader) (Header, error) {
	rr, err := codec.NewReplayReader(r)
	if err != nil {
		return Header{}, err
	}
	return rr.Header(), nil
}

// Load reads the replay from r for game g (the recorded game: the
// fingerprints must agree, else the error wraps ErrGame) and puts
// the player at the replay's first world. A replay whose last frame is cut
// (a recorder's crash) loads up to it (Truncated says so); a damaged frame
// is an error wrapping codec.ErrReplayCorrupt.
func Load[I any](g game.Game[I], r io.Reader) (*Player[I], error) {
	rr, err := codec.NewReplayReader(r)
	if err != nil {
		return nil, fmt.Errorf("rewind: replay: %w", err)
	}
	h := rr.Header()
	it, err := inputs.TypeOf[I](g)
	if err != nil {
		return nil, fmt.Errorf("rewind: replay: input type: %w", err)
	}
	_, w, err := game.NewWorld(g, nil)
	if err != nil {
		return nil, fmt.Errorf("rewind: replay: %w", err)
	}
	if fp := game.Fingerprint(it.Fingerprint(), w.Layout().Hash(), game.RateOf(g)); fp != h.Fingerprint || int(h.InputSize) != it.Size() {
		return nil, fmt.Errorf("rewind: replay of game %q (fingerprint %016x), this game's is %016x: %w", h.Game, h.Fingerprint, fp, ErrGame)
	}
	p := &Player[I]{g: g, it: it, h: h, w: w, prev: world.NewFromLayout(w.Layout()), speed: 1,
		present: make([]bool, h.Players), typed: make([]I, h.Players)}
	if err := p.load(rr); err != nil {
		return nil, err
	}
	if len(p.keys) == 0 {
		return nil, fmt.Errorf("rewind: replay holds no world: %w", codec.ErrReplayCorrupt)
	}
	if err := p.loadKey(0); err != nil {
		return nil, err
	}
	return p, nil
}

// load reads every frame.
func (p *Player[I]) load(rr *codec.ReplayReader) error {
	size := int(p.h.Players) * int(p.h.InputSize)
	for {
		f, err := rr.Next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, codec.ErrReplayTruncated):
			p.trunc = true
			return nil
		case err != nil:
			return fmt.Errorf("rewind: replay: %w", err)
		}
		if f.Kind == codec.ReplayWorld {
			present, enc, err := rr.World(f)
			if err != nil {
				return fmt.Errorf("rewind: replay: %w", err)
			}
			if len(p.keys) == 0 {
				p.first = f.First
			} else if int32(f.First-p.keys[len(p.keys)-1].tick) <= 0 {
				return fmt.Errorf("rewind: replay: world of tick %d after that of tick %d: %w", f.First, p.keys[len(p.keys)-1].tick, codec.ErrReplayCorrupt)
			}
			p.keys = append(p.keys, replayKey{tick: f.First, present: present, enc: append([]byte(nil), enc...)})
			continue
		}
		if len(p.keys) == 0 {
			return fmt.Errorf("rewind: replay: ticks before any world: %w", codec.ErrReplayCorrupt)
		}
		err = rr.Ticks(f, func(t *codec.ReplayTick) error {
			i := int64(t.Tick) - int64(p.first) - 1
			if i < int64(len(p.ticks)) || i > int64(len(p.ticks))+1<<24 {
				return fmt.Errorf("rewind: replay: tick %d after tick %d: %w", t.Tick, p.Last(), codec.ErrReplayCorrupt)
			}
			for int64(len(p.ticks)) < i {
				p.ticks = append(p.ticks, replayTick{})
			}
			rt := replayTick{ok: true, inputs: append([]byte(nil), t.Inputs[:size]...), hash: t.Hash}
			if len(t.Events) > 0 {
				rt.events = append([]codec.ReplayEvent(nil), t.Events...)
			}
			p.ticks = append(p.ticks, rt)
			return nil
		})
		if err != nil {
			return fmt.Errorf("rewind: replay: %w", err)
		}
	}
}

// Header returns the replay's header.
func (p *Player[I]) Header() Header { return p.h }

// First returns the tick of the replay's first world (the player can seek
// to it and to any tick after it up to Last).
func (p *Player[I]) First() uint32 { return p.first }

// Last returns the replay's last recorded tick.
func (p *Player[I]) Last() uint32 { return p.first + uint32(len(p.ticks)) }

// Keyframes returns the ticks of the worlds the replay holds (its start
// first), in order.
func (p *Player[I]) Keyframes() []uint32 {
	ks := make([]uint32, len(p.keys))
	for i, k := range p.keys {
		ks[i] = k.tick
	}
	return ks
}

// Truncated says the replay's last frame was cut (a recorder's crash):
// the player holds the ticks before it.
func (p *Player[I]) Truncated() bool { return p.trunc }

// Tick returns the tick the player's world is after.
func (p *Player[I]) Tick() uint32 { return p.tick }

// World returns the world after Tick (the player's: valid until it moves).
func (p *Player[I]) World() *world.World { return p.w }

// Previous returns the world before Tick's, for drawing between the two
// (after a seek, the same as World).
func (p *Player[I]) Previous() *world.World { return p.prev }

// Present returns who is present after Tick (the player's slice).
func (p *Player[I]) Present() []bool { return p.present }

// Hash returns the recorded hash of tick t (false for a tick the replay
// does not hold).
func (p *Player[I]) Hash(t uint32) (uint64, bool) {
	i := int64(t) - int64(p.first) - 1
	if i < 0 || i >= int64(len(p.ticks)) || !p.ticks[i].ok {
		return 0, false
	}
	return p.ticks[i].hash, true
}

// Done says the player is at the replay's last tick.
func (p *Player[I]) Done() bool { return p.tick == p.Last() }

// Err returns the divergence that stopped the player (it wraps
// ErrDiverged), or nil; a Seek to a keyframe clears it.
func (p *Player[I]) Err() error { return p.err }

// Speed returns the playing speed (1: the recorded tick rate).
func (p *Player[I]) Speed() float64 { return p.speed }

// SetSpeed sets the playing speed Advance uses: 2 plays twice as fast,
// 0 pauses. Negative speeds are taken as 0.
func (p *Player[I]) SetSpeed(x float64) { p.speed = max(x, 0) }

// Fraction returns how far Advance's time is between Tick and the next
// tick, in [0, 1): the alpha to draw Previous and World between.
func (p *Player[I]) Fraction() float64 {
	if p.Done() {
		return 1
	}
	return float64(p.acc) / float64(p.tickDur())
}

func (p *Player[I]) tickDur() time.Duration {
	return time.Second / time.Duration(max(p.h.TickRate, 1))
}

// Advance moves the player dt of playing time on, at its speed: it
// simulates every tick due (checking each hash) and returns how many. At
// the last tick (or SetStop's) it stops and stays there; a divergence stops it with an
// error wrapping ErrDiverged.
func (p *Player[I]) Advance(dt time.Duration) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	p.acc += time.Duration(float64(dt) * p.speed)
	d, n, stop := p.tickDur(), 0, p.Last()
	if p.stop != 0 {
		stop = min(stop, p.stop)
	}
	for p.acc >= d && p.tick < stop {
		p.acc -= d
		if err := p.Step(); err != nil {
			return n, err
		}
		n++
	}
	if p.tick >= stop {
		p.acc = 0
	}
	return n, nil
}

// SetStop makes Advance stop at tick t (0: at Last); Step and Seek go
// past it.
func (p *Player[I]) SetStop(t uint32) { p.stop = t }

// Step simulates the next tick and checks its hash (at the last tick it
// does nothing). Past a gap in a client's replay (it loaded a newer world)
// it goes on from that world.
func (p *Player[I]) Step() error {
	if p.err != nil {
		return p.err
	}
	if p.Done() {
		return nil
	}
	rt := &p.ticks[p.tick-p.first]
	if !rt.ok {
		k := sort.Search(len(p.keys), func(i int) bool { return p.keys[i].tick > p.tick })
		if k == len(p.keys) {
			return fmt.Errorf("rewind: replay: tick %d missing: %w", p.tick+1, codec.ErrReplayCorrupt)
		}
		acc := p.acc
		err := p.loadKey(k)
		p.acc = acc // Advance goes on
		return err
	}
	_ = p.prev.CopyFrom(p.w) // one layout
	p.events = replayTickInput(p.it, rt.events, rt.inputs, p.events, p.typed, p.present)
	p.tick++
	p.tk.Number, p.tk.Events, p.tk.Inputs, p.tk.Present = p.tick, p.events, p.typed, p.present
	p.g.Step(p.w, &p.tk)
	if h := p.w.Hash(); h != rt.hash {
		p.err = fmt.Errorf("rewind: replay: tick %d hashed %016x, recorded %016x: %w", p.tick, h, rt.hash, ErrDiverged)
		return p.err
	}
	return nil
}

// loadKey puts the player at keys[k]'s world, checking it against its
// tick's recorded hash.
func (p *Player[I]) loadKey(k int) error {
	key := &p.keys[k]
	if err := p.w.DecodeWorld(key.enc); err != nil {
		return fmt.Errorf("rewind: replay: world of tick %d: %w", key.tick, err)
	}
	if h, ok := p.Hash(key.tick); ok && h != p.w.Hash() {
		p.err = fmt.Errorf("rewind: replay: keyframe of tick %d hashes %016x, recorded %016x: %w", key.tick, p.w.Hash(), h, ErrDiverged)
		return p.err
	}
	_ = p.prev.CopyFrom(p.w)
	copy(p.present, key.present)
	p.tick, p.acc, p.err = key.tick, 0, nil
	return nil
}

// Seek puts the player at the world after tick t: it loads the nearest
// world recorded at or before t (the start or a keyframe) and simulates
// forward to t, checking every tick's hash; when t is ahead of the
// current tick and no keyframe lies between them, it simulates on from
// where it is. A tick before First or after Last, or one a client's
// recorder skipped (it loaded a newer world), is an error wrapping
// ErrSeek (the player stays where it was); a divergence on the way
// one wrapping ErrDiverged.
func (p *Player[I]) Seek(t uint32) (SeekResult, error) {
	if t < p.first || t > p.Last() {
		return SeekResult{}, fmt.Errorf("rewind: replay: seek to tick %d, the replay holds ticks %d to %d: %w", t, p.first, p.Last(), ErrSeek)
	}
	k := sort.Search(len(p.keys), func(i int) bool { return p.keys[i].tick > t }) - 1
	if _, ok := p.Hash(t); !ok && p.keys[k].tick != t {
		return SeekResult{}, fmt.Errorf("rewind: replay: seek to tick %d, which the recorder skipped (it loaded a newer world): %w", t, ErrSeek)
	}
	res := SeekResult{From: p.tick}
	if p.err != nil || p.tick > t || p.keys[k].tick > p.tick {
		if err := p.loadKey(k); err != nil {
			return res, err
		}
		res.From, res.Keyframe = p.keys[k].tick, true
	}
	for p.tick < t {
		if err := p.Step(); err != nil {
			return res, err
		}
		res.Simulated++
	}
	p.acc = 0
	return res, nil
}
