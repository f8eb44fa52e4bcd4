// Package seat is one person's seat in a match of any registered game
// (package games; FromEntry makes its Kind): the session, the tick
// handler that drives it, the game's draw list and controls (Played), the
// stop at a verified tick, and the status line the browser page writes
// into #status and the window prints at the end. It does not draw
// (package view and the page do) and does not import Ebitengine, so its
// tests run without a display.
package seat

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/server"
)

// Config configures a Player. The zero value plays sand on the
// default 256-cell grid until closed.
type Config struct {
	// Room is the room code the HUD and the status show ("" for a match
	// joined by address: Where is shown instead).
	Room string
	// Where names the server for a match joined by address.
	Where string
	// Settings are the game's settings by name (a Kind of FromEntry:
	// games.Values; a missing one takes its default). They must be the
	// host's, unless HostSettings.
	Settings games.Values
	// Side is the sand grid's side of a sand Player (NewPlayer; 0: sand's
	// default, 256). It must be the host's.
	Side int
	// Rate is the tick rate (0: the game's default). It must be the
	// host's.
	Rate int
	// Until, if not 0, stops the player once its verified tick reaches it
	// (like `rewind play --until-tick`): the session says bye and the
	// status keeps the verified hash of exactly that tick. A player
	// rebased past it (it fell further behind than the server keeps
	// ticks: its next world was the server's of a later tick) stops
	// there, its status keeping that tick and its hash: it never
	// verified Until.
	Until uint32
	// Timeout is how long the server may stay silent (0: the client's
	// default).
	Timeout time.Duration
	// Spectate makes the seat a spectator's (like `rewind watch`): it
	// asks for no player slot, sends no input (SetInput does nothing)
	// and shows only the ticks the server verified.
	Spectate bool
	// Delay, for a spectator, is how far behind the match it watches: the
	// server sends it a tick no earlier than Delay after running it (at
	// most three quarters of the server's history, 3 s by default). 0:
	// as soon as the tick is verified.
	Delay time.Duration
	// HostSettings takes the host's match settings from the welcome
	// (rewind.ClientConfig.HostSettings: a game that is
	// rewind.Configurable, as sand is): Side is then only the game's
	// until the welcome, and Session().Game() is the game played.
	HostSettings bool
	// Moved counts the moves to a new host before this seat's session,
	// which its status adds to the session's migrations: a tab whose room
	// the relay gave to another player joins it again in a new seat.
	Moved int
}

// Seat is one person's seat in a match of a game with input I, whose
// game value G (*sand.Game, *ships.Game) reads the worlds the session
// hands a view: the session, the tick handler that drives it, and the
// status a page or a test reads. Tick is called by whatever keeps time (a
// Web Worker's timer on the page, a ticker in the window); the view
// draws it on Ebitengine's frames. All its methods are safe from any
// goroutine.
type Seat[I comparable, G any] struct {
	sess  *rewind.Session[I]
	game  G
	room  string
	where string
	until uint32
	watch bool          // a spectator's seat
	delay time.Duration // the spectator's delay
	moved int           // Config.Moved

	mu        sync.Mutex
	last      rewind.Stats
	untilHash uint64
	gotUntil  bool
	untilBad  bool // tick Until's hash differed from the server's
	hidden    bool // the game hides information (Kind.Hidden): a repaired Until is verified
	done      bool
	serving   bool // done, but hosting the match for others: Tick serves
	err       error
	input     I
}

// Player is a seat in a sand match.
type Player = Seat[sand.Input, *sand.Game]

// ConnectorOf starts a session of g with opts: rewind.JoinRoom (by room
// code) or rewind.ConnectUDP (by address), for example.
type ConnectorOf[I any] func(g rewind.Game[I], opts rewind.Options) (*rewind.Session[I], error)

// Connector is a sand session's ConnectorOf.
type Connector = ConnectorOf[sand.Input]

// NewPlayer starts a sand session on a Config.Side grid with connect,
// which the Player owns from then on (Close ends it).
func NewPlayer(cfg Config, connect Connector) (*Player, error) {
	g := sand.New(cfg.Side)
	return Open(g, g, cfg, connect)
}

// Open starts a session of g with connect, which the Seat owns from then
// on (Close ends it); view is the game value the Seat's Game returns
// (often g itself).
func Open[I comparable, G any](g rewind.Game[I], view G, cfg Config, connect ConnectorOf[I]) (*Seat[I, G], error) {
	p := &Seat[I, G]{game: view, room: cfg.Room, where: cfg.Where, until: cfg.Until,
		watch: cfg.Spectate, delay: cfg.Delay, moved: cfg.Moved}
	s, err := connect(g, rewind.Options{Client: rewind.ClientConfig{
		ServerTimeout: cfg.Timeout,
		OnVerified:    p.onVerified,
		OnDesync:      p.onDesync,
		Spectate:      cfg.Spectate,
		SpectateDelay: cfg.Delay,
		HostSettings:  cfg.HostSettings,
	}})
	if err != nil {
		return nil, err
	}
	p.sess = s
	return p, nil
}

func (p *Seat[I, G]) onVerified(tick uint32, hash uint64) {
	if p.until != 0 && tick == p.until {
		p.mu.Lock()
		p.untilHash, p.gotUntil = hash, true
		if p.hidden {
			// A game with hidden information mispredicts what Step reads
			// of it and repairs that (docs/scenes.md): verified after
			// the repair, the tick is not a desync (as rewind play).
			p.untilBad = false
		}
		p.mu.Unlock()
	}
}

func (p *Seat[I, G]) onDesync(tick uint32, _, _ uint64) {
	if p.until != 0 && tick == p.until {
		p.mu.Lock()
		p.untilBad = true
		p.mu.Unlock()
	}
}

// Tick runs the session at now: everything that arrived and every tick
// that is due. Once Config.Until is verified (or passed by a rebase, or
// the session fails)
// it closes the session and does nothing more; Err says why it stopped.
// A session that hosts the match when it reaches Until serves on (as
// `rewind play` does) until no other player is in the match: Serving.
func (p *Seat[I, G]) Tick(now time.Time) {
	p.mu.Lock()
	if p.done {
		serving := p.serving
		p.mu.Unlock()
		if serving {
			p.serve(now)
		}
		return
	}
	p.mu.Unlock()
	err := p.sess.Update(now)
	st := p.sess.Stats()
	p.mu.Lock()
	p.last = st
	switch {
	case err != nil:
		p.err = err
	case p.until != 0 && p.gotUntil:
		if p.untilBad {
			p.err = fmt.Errorf("tick %d desynced: verified_hash %016x differs from the server's", p.until, p.untilHash)
		}
	case p.until != 0 && st.Verified > p.until:
		// Rebased past Until (it fell further behind than the server
		// keeps ticks, and the server's world of a later tick replaced
		// its own): it stops at the tick it has, which its status names
		// (final); it has no hash of Until's to show.
	default:
		p.mu.Unlock()
		return
	}
	p.done = true
	p.serving = p.err == nil && p.sess.Hosting()
	serving := p.serving
	p.mu.Unlock()
	if !serving {
		_ = p.sess.Close()
	}
}

// serve runs the match a done player hosts until it fails or no other
// player is in it, then closes the session.
func (p *Seat[I, G]) serve(now time.Time) {
	err := p.sess.Update(now)
	if st, ok := p.sess.ServerStats(); err == nil && ok && st.Players > 1 {
		return
	}
	p.mu.Lock()
	p.serving = false
	p.mu.Unlock()
	_ = p.sess.Close()
}

// Serving reports whether the player, done (Config.Until reached), still
// hosts the match for the players in it (Tick runs it on): whoever
// drives Tick keeps doing so until Serving is false.
func (p *Seat[I, G]) Serving() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.serving
}

// SetInput sets this player's input from the next predicted tick on. A
// spectator's seat has no input: it does nothing there.
func (p *Seat[I, G]) SetInput(in I) {
	if p.watch {
		return
	}
	p.mu.Lock()
	same := in == p.input
	p.input = in
	p.mu.Unlock()
	if !same {
		p.sess.SetInput(in)
	}
}

// Done reports whether the player has stopped (Until reached, or the
// session failed: see Err).
func (p *Seat[I, G]) Done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Err returns why the player stopped early, or nil.
func (p *Seat[I, G]) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stats returns the client's counters as of the last Tick.
func (p *Seat[I, G]) Stats() rewind.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Spectating reports whether the seat is a spectator's (Config.Spectate).
func (p *Seat[I, G]) Spectating() bool { return p.watch }

// Delay returns the spectator's delay (Config.Delay).
func (p *Seat[I, G]) Delay() time.Duration { return p.delay }

// Session returns the player's session (for drawing and effects).
func (p *Seat[I, G]) Session() *rewind.Session[I] { return p.sess }

// Game returns the seat's game value (its handles read the worlds the
// session hands a view).
func (p *Seat[I, G]) Game() G { return p.game }

// Close ends the session (says bye) if Tick has not already.
func (p *Seat[I, G]) Close() error {
	p.mu.Lock()
	p.done, p.serving = true, false
	p.mu.Unlock()
	return p.sess.Close()
}

// final returns the verified tick and hash to report: those of Until once
// reached, else the last verified ones.
func (p *Seat[I, G]) final() (uint32, uint64, rewind.Stats) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.until != 0 && p.gotUntil {
		return p.until, p.untilHash, p.last
	}
	return p.last.Verified, p.last.VerifiedHash, p.last
}

// Status returns the page's status line: key=value pairs separated by
// spaces, with at least room, player, tick (the predicted tick),
// verified_tick, verified_hash (16 lowercase hex digits, as `rewind play`
// prints it), rollbacks, resyncs and ping_ms; then state (connecting,
// playing, spectating — a spectator's seat once the server admitted it,
// with player=- — done or failed), desyncs, migrations (how many times the
// session moved to a new host), waiting_for (the ids the server's
// stall waits for, comma-separated; empty when it does not wait, as on
// `rewind play`'s status lines) and hosting (true while this seat's
// session hosts the match: a tab that hosts a room, or took the hosting
// over in a migration). Once Until is reached,
// verified_tick is Until and verified_hash that tick's hash (or, for a
// player rebased past Until, the tick it has and its hash).
func (p *Seat[I, G]) Status() string {
	tick, hash, st := p.final()
	p.mu.Lock()
	done, err := p.done, p.err
	p.mu.Unlock()
	state := "connecting"
	player := "-"
	if id, ok := p.sess.Player(); ok {
		player = fmt.Sprint(id)
		state = "playing"
	} else if p.watch && p.sess.State() != rewind.Connecting {
		state = "spectating"
	}
	switch {
	case err != nil:
		state = "failed"
	case done:
		state = "done"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "room=%s player=%s tick=%d verified_tick=%d verified_hash=%016x rollbacks=%d resyncs=%d ping_ms=%.1f state=%s desyncs=%d migrations=%d waiting_for=%s hosting=%v",
		p.Room(), player, st.Predicted, tick, hash, st.Rollbacks, st.Resyncs,
		float64(st.Ping)/float64(time.Millisecond), state, st.Desyncs, p.Migrations(), server.WaitingIDs(st.WaitingFor),
		p.sess.Hosting())
	return b.String()
}

// FinalLine returns `rewind play`'s last line for this player: the same
// keys in the same order.
func (p *Seat[I, G]) FinalLine() string {
	tick, hash, st := p.final()
	return fmt.Sprintf("verified_tick=%d verified_hash=%016x rollbacks=%d resyncs=%d ping_ms=%.1f desyncs=%d player=%d predicted_tick=%d max_rollback=%d late_inputs=%d bytes_in=%d bytes_out=%d migrations=%d hosting=%v",
		tick, hash, st.Rollbacks, st.Resyncs, float64(st.Ping)/float64(time.Millisecond), st.Desyncs,
		st.Player, st.Predicted, st.MaxRollback, st.LateInputs, st.BytesIn, st.BytesOut,
		p.Migrations(), p.sess.Hosting())
}

// Migrations returns how many times the match moved to a new host while
// this seat was in it (Config.Moved and its session's).
func (p *Seat[I, G]) Migrations() int { return p.moved + p.sess.Migrations() }

// Hosting reports whether the seat's session hosts the match.
func (p *Seat[I, G]) Hosting() bool { return p.sess.Hosting() }

// Room returns what the HUD and the status name the match by: the room
// code, else the server's address, else "-".
func (p *Seat[I, G]) Room() string {
	if p.room != "" {
		return p.room
	}
	if p.where != "" {
		return p.where
	}
	return "-"
}

// WaitingStatus returns the status line of a page whose player is not
// in a match yet: every key of Player.Status, with zero ticks, the
// given state (joining, failed) and migrations (the moves of a match
// the page was in before: a tab joining again the room it hosted), and
// hosting=false.
func WaitingStatus(room, state string, migrations int) string {
	if room == "" {
		room = "-"
	}
	return fmt.Sprintf("room=%s player=- tick=0 verified_tick=0 verified_hash=%016x rollbacks=0 resyncs=0 ping_ms=0.0 state=%s desyncs=0 migrations=%d waiting_for= hosting=false", room, 0, state, migrations)
}

// WaitingFor returns the line the view shows while the server holds the
// match for slow players (its stall policy): "Waiting for: NAME, NAME…"
// with the players' names (or "player ID" for one without), or "" when
// the match is not held.
func (p *Seat[I, G]) WaitingFor() string {
	p.mu.Lock()
	set := p.last.WaitingFor
	p.mu.Unlock()
	return WaitingLine(set, p.sess.Name)
}

// WaitingLine returns the "Waiting for: NAME…" line of a waiting set
// (bit i for player i), naming each player by name (name's answer, or
// "player ID" when it has none), in id order; "" for an empty set. Names
// are shown as plain text: the server allows no control characters in
// them.
func WaitingLine(set uint64, name func(rewind.PlayerID) string) string {
	if set == 0 {
		return ""
	}
	var names []string
	for id := range rewind.MaxPlayers {
		if set&(1<<id) == 0 {
			continue
		}
		n := name(rewind.PlayerID(id))
		if n == "" {
			n = fmt.Sprintf("player %d", id)
		}
		names = append(names, n)
	}
	return "Waiting for: " + strings.Join(names, ", ") + "…"
}
