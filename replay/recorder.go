package replay

import (
	"io"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Recorder records a match into a replay file (the format is codec's,
// replay.go there): set it as rewind.ServerConfig.Record or
// rewind.ClientConfig.Record (it is a Sink). The file is
// opened (Open) at the recording's start, before the match's first tick (or the first tick a late client
// verifies); ticks are written a frame of about a second at a time, so a
// crash loses at most the last second; with a server's world at hand a
// keyframe (the whole world) goes every KeyframeEvery ticks, for seeking.
// A server's recorder begins a new replay (Open again) at every match's
// start, so that a host's successive matches go to a file each; a client's
// goes on in the same replay when it has to load a newer world. It is not
// safe for concurrent use: the match's Update calls it.
type Recorder struct {
	// Open returns where the replay goes; it is called at the
	// recording's start (a server's: at every match's) with the match's
	// side of the header. A writer that is an io.Closer is closed when
	// the recording ends (Close, or the next match's start).
	Open func(h Header) (io.Writer, error)
	// Game, Settings and Started go into the header (the game's name, the
	// match's settings as text, the start in Unix milliseconds); Open may
	// set them.
	Game     string
	Settings string
	Started  uint64
	// KeyframeEvery is how many ticks apart keyframes are (default ten
	// seconds' worth; negative: none).
	KeyframeEvery int

	w       *codec.ReplayWriter
	out     io.Writer
	err     error
	events  []codec.ReplayEvent
	present []bool // who is present after the last tick recorded
	enc     []byte
	ticks   uint32
	written int64 // bytes of the replays closed
}

// Err returns the first error of opening or writing the replay; after it
// the recorder records nothing more.
func (r *Recorder) Err() error { return r.err }

// Ticks returns how many ticks were recorded.
func (r *Recorder) Ticks() uint32 { return r.ticks }

// Written returns the bytes written so far (of every replay this
// recorder wrote).
func (r *Recorder) Written() int64 {
	if r.w == nil {
		return r.written
	}
	return r.written + r.w.Written()
}

// RecordStart opens the replay (the first time) and writes the world after
// tick.
func (r *Recorder) RecordStart(h Header, tick uint32, w *world.World, present []bool) {
	if r.w != nil && h.Recorder == codec.RecordedByServer {
		r.err = r.Close() // a new match
	}
	if r.err != nil {
		return
	}
	if r.w == nil {
		out, err := r.Open(h)
		if err != nil {
			r.err = err
			return
		}
		r.out = out
		h.Game, h.Settings, h.Started = r.Game, r.Settings, r.Started
		if r.w, r.err = codec.NewReplayWriter(out, h); r.err != nil {
			return
		}
	}
	r.world(tick, w, present)
}

func (r *Recorder) world(tick uint32, w *world.World, present []bool) {
	r.present = append(r.present[:0], present...)
	r.enc = w.AppendWorld(r.enc[:0])
	r.err = r.w.World(tick, present, r.enc)
}

// RecordTick writes a tick (and, every KeyframeEvery ticks when w is not
// nil, a keyframe after it), flushing a frame every second of ticks.
func (r *Recorder) RecordTick(tick uint32, events []game.Event, inputs []byte, hash uint64, w *world.World) {
	if r.err != nil || r.w == nil {
		return
	}
	r.events = r.events[:0]
	for _, e := range events {
		r.events = append(r.events, codec.ReplayEvent{Leave: e.Kind == game.Leave, Player: uint8(e.Player)})
		if int(e.Player) < len(r.present) {
			r.present[e.Player] = e.Kind == game.Join
		}
	}
	if r.err = r.w.Tick(tick, r.events, inputs, hash); r.err != nil {
		return
	}
	r.ticks++
	rate := int(r.w.Header().TickRate)
	if r.w.Pending() >= rate {
		r.err = r.w.Flush()
	}
	every := r.KeyframeEvery
	if every == 0 {
		every = 10 * rate
	}
	if w != nil && every > 0 && tick%uint32(every) == 0 && r.err == nil {
		r.world(tick, w, r.present)
	}
}

// Close ends the recording: it writes the ticks not yet written, closes
// the writer if it is an io.Closer, and returns the first error. A
// server's next match (RecordStart) opens a new replay; Close again does
// nothing.
func (r *Recorder) Close() error {
	if r.w == nil {
		return r.err
	}
	if r.err == nil {
		r.err = r.w.Flush()
	}
	if c, ok := r.out.(io.Closer); ok {
		if err := c.Close(); r.err == nil {
			r.err = err
		}
	}
	r.written += r.w.Written()
	r.w, r.out, r.enc = nil, nil, nil
	return r.err
}
