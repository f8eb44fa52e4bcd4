package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Options configure Verify.
type Options struct {
	// UntilTick stops after this tick (0: the whole replay).
	UntilTick uint32
	// OnTick, if set, is called after every tick simulated and checked
	// (w valid only during the call); an error stops the replay and is
	// returned.
	OnTick func(tick uint32, w *world.World) error
}

// Result is what Verify found.
type Result struct {
	// Header is the replay's header.
	Header Header
	// Ticks counts the ticks simulated again and checked.
	Ticks uint32
	// LastTick is the last tick checked.
	LastTick uint32
	// Verified is true when every tick read hashed as recorded and every
	// frame read was sound (an incomplete last frame, Truncated, does not
	// count against it).
	Verified bool
	// FirstBad is the first tick that did not verify: the first whose
	// hash differed, or the first tick of the first frame that failed its
	// checksum or did not decode (0 when Verified).
	FirstBad uint32
	// Truncated says the file ends inside a frame: a recorder's crash.
	Truncated bool
	// Keyframes counts the keyframes checked against the world simulated
	// again.
	Keyframes int
	// Reason says why a replay did not verify, or where it was cut
	// (Truncated).
	Reason string
}

// Verify simulates the replay read from r again with game g (which
// must be the recorded game: the fingerprints must agree) and checks every
// tick's world hash against the recorded one, and every keyframe against
// the world simulated. A replay that does not verify is not an error: the
// result says where and why. Errors are for replays of another game, for
// a player's replay of a game with private scenes (ErrPartial: it
// holds only what the player saw) and for reading failures.
func Verify[I any](g game.Game[I], r io.Reader, opts Options) (Result, error) {
	var res Result
	rr, err := codec.NewReplayReader(r)
	if err != nil {
		return res, fmt.Errorf("rewind: replay: %w", err)
	}
	h := rr.Header()
	res.Header = h
	it, err := inputs.TypeOf[I](g)
	if err != nil {
		return res, fmt.Errorf("rewind: replay: input type: %w", err)
	}
	_, w, err := game.NewWorld(g, nil)
	if err != nil {
		return res, fmt.Errorf("rewind: replay: %w", err)
	}
	if fp := game.Fingerprint(it.Fingerprint(), w.Layout().Hash(), game.RateOf(g)); fp != h.Fingerprint || int(h.InputSize) != it.Size() {
		return res, fmt.Errorf("rewind: replay of game %q (fingerprint %016x), this game's is %016x: %w", h.Game, h.Fingerprint, fp, ErrGame)
	}
	if w.Layout().HasScenes() && h.Recorder != codec.RecordedByServer {
		return res, fmt.Errorf("rewind: replay of game %q recorded by a player: %w", h.Game, ErrPartial)
	}
	v := &verifier[I]{g: g, it: it, w: w, scratch: world.NewFromLayout(w.Layout()), rr: rr, opts: opts, res: &res,
		typed: make([]I, h.Players), present: make([]bool, h.Players)}
	v.res.Verified = true
	err = v.run()
	return res, err
}

// verifier is Verify's state.
type verifier[I any] struct {
	g       game.Game[I]
	it      *inputs.Type[I]
	w       *world.World
	scratch *world.World
	rr      *codec.ReplayReader
	opts    Options
	res     *Result
	started bool
	tick    uint32 // the world is the world after this tick
	typed   []I
	present []bool
	events  []game.Event
	tk      game.Tick[I]
}

// errStop ends the frame loop without an error.
var errStop = errors.New("stop")

func (v *verifier[I]) fail(tick uint32, reason string) error {
	v.res.Verified, v.res.FirstBad, v.res.Reason = false, tick, reason
	return errStop
}

func (v *verifier[I]) run() error {
	for {
		f, err := v.rr.Next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, codec.ErrReplayTruncated):
			v.res.Truncated = true
			v.res.Reason = fmt.Sprintf("%v: the ticks after %d are missing (a recorder that crashed, a copy cut short)", err, v.tick)
			return nil
		case errors.Is(err, codec.ErrReplayCorrupt):
			bad := f.First
			if bad == 0 || int32(bad-(v.tick+1)) < 0 {
				bad = v.tick + 1
			}
			v.fail(bad, err.Error())
			return nil
		case err != nil:
			return fmt.Errorf("rewind: replay: %w", err)
		}
		if f.Kind == codec.ReplayWorld {
			err = v.world(f)
		} else {
			err = v.rr.Ticks(f, v.step)
		}
		if errors.Is(err, errStop) {
			return nil
		}
		if errors.Is(err, codec.ErrReplayCorrupt) {
			v.fail(f.First, err.Error())
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// world takes a world frame: the start (or, from a client that had to
// load a newer world, a restart), or a keyframe to check.
func (v *verifier[I]) world(f codec.ReplayFrame) error {
	present, enc, err := v.rr.World(f)
	if err != nil {
		return err
	}
	if err := v.scratch.DecodeWorld(enc); err != nil {
		return v.fail(f.First, fmt.Sprintf("world of tick %d does not decode: %v", f.First, err))
	}
	if v.started && f.First == v.tick {
		if !v.scratch.Equal(v.w) {
			return v.fail(f.First, fmt.Sprintf("keyframe of tick %d differs from the world simulated", f.First))
		}
		v.res.Keyframes++
		return nil
	}
	if v.started && int32(f.First-v.tick) < 0 {
		return v.fail(v.tick+1, fmt.Sprintf("world of tick %d after tick %d", f.First, v.tick))
	}
	_ = v.w.CopyFrom(v.scratch) // one layout
	copy(v.present, present)
	v.tick, v.started = f.First, true
	return nil
}

// step simulates one recorded tick and checks its hash.
func (v *verifier[I]) step(rt *codec.ReplayTick) error {
	if !v.started || rt.Tick != v.tick+1 {
		return v.fail(rt.Tick, fmt.Sprintf("tick %d follows tick %d", rt.Tick, v.tick))
	}
	v.events = replayTickInput(v.it, rt.Events, rt.Inputs, v.events, v.typed, v.present)
	v.tk.Number, v.tk.Events, v.tk.Inputs, v.tk.Present = rt.Tick, v.events, v.typed, v.present
	v.g.Step(v.w, &v.tk)
	v.tick = rt.Tick
	if h := v.w.Hash(); h != rt.Hash {
		return v.fail(rt.Tick, fmt.Sprintf("tick %d hashed %016x, recorded %016x", rt.Tick, h, rt.Hash))
	}
	v.res.Ticks++
	v.res.LastTick = rt.Tick
	if v.opts.OnTick != nil {
		if err := v.opts.OnTick(rt.Tick, v.w); err != nil {
			return err
		}
	}
	if v.opts.UntilTick != 0 && rt.Tick >= v.opts.UntilTick {
		return errStop
	}
	return nil
}

// replayTickInput turns a recorded tick's events and packed inputs into
// what Step is given: the events (appended to events[:0], returned), the
// players present after them, every player's input unpacked into typed.
func replayTickInput[I any](it *inputs.Type[I], evs []codec.ReplayEvent, packed []byte, events []game.Event, typed []I, present []bool) []game.Event {
	events = events[:0]
	for _, e := range evs {
		k := game.Join
		if e.Leave {
			k = game.Leave
		}
		events = append(events, game.Event{Kind: k, Player: game.PlayerID(e.Player)})
		present[e.Player] = !e.Leave
	}
	size := it.Size()
	for p := range typed {
		it.Unpack(packed[p*size:(p+1)*size], &typed[p])
	}
	return events
}
