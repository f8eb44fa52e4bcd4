package seat

import (
	"bytes"
	"fmt"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/replay"
)

// SeekStep is how far Replay.SeekBy moves on each key press the
// window gives it (the left and right arrows).
const SeekStep = 10 * time.Second

// Replay is a seat at a replay of a match of any registered game (a file
// `rewind serve --record` or `rewind play --record` wrote; its header
// names the game, games.FromReplay makes it): the replay player, which
// re-simulates the match checking every tick's recorded hash, the clock
// that steps it at its speed, pausing and seeking (from the nearest
// keyframe), and the status line. Like Player it does not draw. Its
// methods are called from one goroutine (the window's game loop).
type Replay struct {
	name   string
	p      *replay.Player[games.Input]
	entry  *games.Entry
	game   games.Game
	until  uint32
	paused bool
	last   time.Time // when Update last ran (zero: not yet)
}

// NewReplay loads the replay in b (name is what the status calls it) for
// playing at speed (1: as recorded). until, if not 0, is the tick Done
// waits for (it must be in the replay).
func NewReplay(name string, b []byte, speed float64, until uint32) (*Replay, error) {
	h, err := replay.ReadHeader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", name, err)
	}
	e, g, err := games.FromReplay(h)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", name, err)
	}
	p, err := replay.Load[games.Input](g, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", name, err)
	}
	if until != 0 && (until < p.First() || until > p.Last()) {
		return nil, fmt.Errorf("replay %s holds ticks %d to %d, not %d: %w", name, p.First(), p.Last(), until, replay.ErrSeek)
	}
	if speed <= 0 {
		return nil, fmt.Errorf("replay %s: speed %v: want more than 0", name, speed)
	}
	p.SetSpeed(speed)
	p.SetStop(until)
	return &Replay{name: name, p: p, entry: e, game: g, until: until}, nil
}

// Player returns the replay player (its World and Previous are the
// worlds to draw, Fraction the alpha between them).
func (r *Replay) Player() *replay.Player[games.Input] { return r.p }

// Game returns the game the replay was recorded with (Entry().Values
// says its settings).
func (r *Replay) Game() games.Game { return r.game }

// Entry returns the registered game the replay plays.
func (r *Replay) Entry() *games.Entry { return r.entry }

// Size returns the canvas the game would like.
func (r *Replay) Size() (w, h int) {
	if r.entry.Size == nil {
		return games.DefaultWidth, games.DefaultHeight
	}
	return r.entry.Size(r.game)
}

// Draw draws the replay's world (between the last two ticks at the
// player's fraction, as a spectator sees it) on a w×h canvas into l
// (reset first).
func (r *Replay) Draw(l *draw.List, w, h int) {
	l.Reset()
	if r.entry.Draw != nil {
		r.entry.Draw(r.game, rewind.View{Prev: r.p.Previous(), Cur: r.p.World(), Alpha: r.p.Fraction(), Me: -1, Width: w, Height: h}, l)
	}
}

// Name returns the replay's name (its file).
func (r *Replay) Name() string { return r.name }

// Update steps the replay by the time since the last Update (none the
// first time), at its speed unless paused, stopping at Until; it returns
// the player's divergence error, if any.
func (r *Replay) Update(now time.Time) error {
	dt := time.Duration(0)
	if !r.last.IsZero() {
		dt = now.Sub(r.last)
	}
	r.last = now
	if r.paused || r.Done() {
		return r.p.Err()
	}
	_, err := r.p.Advance(dt)
	return err
}

// Paused says whether the replay is paused.
func (r *Replay) Paused() bool { return r.paused }

// TogglePause pauses or resumes the replay.
func (r *Replay) TogglePause() { r.paused = !r.paused }

// SetSpeed sets the playing speed (more than 0; 2: twice as fast).
func (r *Replay) SetSpeed(x float64) {
	if x > 0 {
		r.p.SetSpeed(x)
	}
}

// SeekTo jumps to tick t, clamped to the replay's ticks (the player loads
// the nearest keyframe at or before it and simulates forward).
func (r *Replay) SeekTo(t int64) error {
	t = min(max(t, int64(r.p.First())), int64(r.p.Last()))
	_, err := r.p.Seek(uint32(t))
	return err
}

// SeekBy jumps d of match time from the current tick (back when d < 0),
// clamped to the replay's ticks.
func (r *Replay) SeekBy(d time.Duration) error {
	ticks := int64(d) * int64(r.p.Header().TickRate) / int64(time.Second)
	return r.SeekTo(int64(r.p.Tick()) + ticks)
}

// Done says the replay reached Until (or, without one, never: a window
// stays at a replay's end until closed).
func (r *Replay) Done() bool { return r.until != 0 && r.p.Tick() >= r.until }

// Status returns the HUD's and the window's line: "replay=NAME tick=T
// last=L speed=X paused=BOOL hash=H" (H: the world's hash after T, which
// the player checked against the recorded one).
func (r *Replay) Status() string {
	return fmt.Sprintf("replay=%s tick=%d last=%d speed=%g paused=%v hash=%016x",
		r.name, r.p.Tick(), r.p.Last(), r.p.Speed(), r.paused, r.p.World().Hash())
}
