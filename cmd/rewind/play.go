package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/server"
)

func init() {
	registerInterruptible("play", "join a match as a headless bot, over UDP (--connect HOST:PORT) or by room code (--join CODE --relay URL[,URL…]: a fleet's relays, tried in turn)", play)
}

// errReached stops the play loop at --until-tick.
var errReached = errors.New("until-tick reached")

// play joins a match and plays until --until-tick is verified, ctx ends
// or the session fails; it ends with one key=value line on stdout.
func play(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return playAs(ctx, false, args, stdout, stderr)
}

// playAs is play, or with watch rewind watch: a spectator (watch.go).
func playAs(ctx context.Context, watch bool, args []string, stdout, stderr io.Writer) error {
	o, err := parsePlay(watch, args, stderr)
	if err != nil {
		return err
	}
	addr := *o.addr // run sets it to the room's name with --join
	err = o.run(ctx, stdout)
	if errors.Is(err, errHostModule) {
		// Refused as another game with no --game given: the host may
		// play a WebAssembly module, which travels with the match.
		o.log.Info("the host plays another game than " + o.gf.name + ": joining again to play the host's module")
		o.gf.name, *o.addr = hostModuleGame, addr
		if err := o.check(); err != nil {
			return err
		}
		err = o.run(ctx, stdout)
	}
	return err
}

// errHostModule asks playAs to join again as a player of the host's
// module (hostModuleGame).
var errHostModule = errors.New("refused as another game: try the host's module")

// hostModule reports whether a refusal err asks to join again as a
// player of the host's module: the server refused the game, which the
// player did not choose (no --game), naming the host's module's game
// (or no game, as servers before the name do), and modules are built
// in.
func (o *playOpts) hostModule(err error) bool {
	var r *rewind.RefusedError
	if hostModuleGame == "" || o.gf.name == hostModuleGame || !errors.As(err, &r) || r.Reason != codec.ReasonGame ||
		r.Game != "" && r.Game != hostModuleGame { // a server before the name says none
		return false
	}
	given := false
	o.fs.Visit(func(f *flag.Flag) { given = given || f.Name == "game" })
	return !given
}

// options is the session's options, its callbacks loop's.
func (o *playOpts) options(loop *playLoop) rewind.Options {
	opts := rewind.Options{
		Client: rewind.ClientConfig{
			InputDelay:     o.inputDelay,
			Lockstep:       *o.lockstep,
			AutoInputDelay: o.autoDelay,
			HostSettings:   o.hostSettings,
			ServerTimeout:  *o.timeout,
			Room:           strings.ToUpper(*o.room),
			OnVerified:     loop.onVerified,
			OnDesync:       loop.onDesync,
			DebugDesync:    o.df.debugger(o.log),
			Spectate:       o.watch,
		},
		OnUpdate: loop.onUpdate,
	}
	if o.watch {
		opts.Client.SpectateDelay = *o.spectateDelay
		warnLongDelay(o.log, *o.spectateDelay) // watch.go
	}
	return opts
}

// connect joins the match (by code through a relay, or at --connect) as
// the game's bot.
func (o *playOpts) connect(ctx context.Context, opts rewind.Options) (playSession, error) {
	var keys *serverKeyCheck // serverkey.go
	o.jf.log = o.log
	if o.jf.code == "" {
		var err error
		if keys, err = newServerKeyCheck(*o.addr, *o.serverKey, *o.knownServers, o.log); err != nil {
			return nil, err
		}
	}
	bot, err := o.gf.entry.Bot(*o.input, *o.seed)
	if err != nil {
		return nil, usageError{Err: err}
	}
	return connectPlay(ctx, o.gf.newGame(), bot, &o.jf, o.addr, opts, *o.timeout, keys)
}

// run plays until --until-tick, the match's end or ctx's, and prints the
// last line.
func (o *playOpts) run(ctx context.Context, stdout io.Writer) error {
	log := o.log
	loop := &playLoop{until: uint32(*o.until), log: log, every: *o.status, stdout: stdout, timeout: *o.timeout, scenes: o.gf.entry.Hidden, entry: o.gf.entry, watch: o.watch}
	opts := o.options(loop)
	if rec := o.rf.recorder(&o.gf, log); rec != nil {
		opts.Client.Record = rec
		defer closeRecorder(rec, log) // after the session's close
	}
	s, err := o.connect(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	loop.s = s
	loop.chat = o.chatLines
	if *o.name != "" {
		_ = s.SetName(*o.name) // the stream is empty: it fits
	}
	if *o.ready {
		_ = s.SetReady(true) // the second message: it fits
	}
	if *o.httpAddr != "" {
		reg := metrics.NewRegistry()
		metrics.RegisterPlayer(reg, s.Stats)
		hs, err := startHTTP(*o.httpAddr, reg, log)
		if err != nil {
			return err
		}
		defer hs.close()
	}
	local, _ := s.Addrs()
	log.Info("connected", "server", *o.addr, "local", local)
	err = s.Run(ctx)
	st := s.Stats()
	var ended *rewind.EndedError
	switch {
	case errors.Is(err, errReached):
		if loop.desyncAtUntil {
			return fmt.Errorf("tick %d desynced: verified_hash %016x differs from the server's", loop.until, loop.hash)
		}
		tick, hash := loop.reached()
		finalLine(stdout, tick, hash, st, s)
		return nil
	case err == nil: // interrupted (ctx ended)
		finalLine(stdout, st.Verified, st.VerifiedHash, st, s)
		return shortOfUntil(loop, st, s)
	case errors.As(err, &ended):
		return matchEnded(stdout, loop, ended, st, s, log)
	}
	if o.hostModule(err) {
		return errHostModule
	}
	return sessionError(*o.addr, *o.timeout, err)
}

// shortOfUntil is the error of a play interrupted short of --until-tick
// while a host migration had not brought it to a serving host (issue
// 43: a new host that never served its players), or nil: the exit
// status says the match did not reach the tick asked.
func shortOfUntil(loop *playLoop, st rewind.Stats, s playSession) error {
	if loop.until == 0 || loop.got || st.Verified >= loop.until {
		return nil
	}
	if s.State() != rewind.Migrating && s.Migrations() == 0 {
		return nil
	}
	return fmt.Errorf("stopped at verified tick %d, short of --until-tick %d: the host migration did not bring the match back (state %v, migrations %d)",
		st.Verified, loop.until, s.State(), s.Migrations())
}

// finalLine prints play's last line; migrations and hosting come from s
// (host migration: how many times it moved to a new host, and whether it
// ends as the host). The desktop window prints the same keys in the same
// order (view/seat's Player.FinalLine; view/e2e's TestWindowAndBot
// compares the two lines' keys): change both together.
func finalLine(w io.Writer, tick uint32, hash uint64, st rewind.Stats, s playSession) {
	keyValues(w,
		"verified_tick", tick,
		"verified_hash", fmt.Sprintf("%016x", hash),
		"rollbacks", st.Rollbacks,
		"resyncs", st.Resyncs,
		"ping_ms", fmt.Sprintf("%.1f", float64(st.Ping)/float64(time.Millisecond)),
		"desyncs", st.Desyncs,
		"player", st.Player,
		"predicted_tick", st.Predicted,
		"max_rollback", st.MaxRollback,
		"late_inputs", st.LateInputs,
		"bytes_in", st.BytesIn,
		"bytes_out", st.BytesOut,
		"migrations", s.Migrations(),
		"hosting", s.Hosting(),
	)
}

// waitingNames lists the names of a waiting set's players ("?" for a
// player without one), comma-separated: "Waiting for: NAME…".
func (p *playLoop) waitingNames(set uint64) string {
	var names []string
	for id := range 64 {
		if set&(1<<id) != 0 {
			n := p.s.Name(rewind.PlayerID(id))
			if n == "" {
				n = "?"
			}
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// readChatFile reads --chat-file's lines (none without it); at most
// 1 MiB.
func readChatFile(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{Err: fmt.Errorf("--chat-file: %v", err)}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil {
		return nil, fmt.Errorf("--chat-file: %v", err)
	}
	if len(b) > 1<<20 {
		return nil, usageError{Err: errors.New("--chat-file: over 1 MiB")}
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n"), nil
}

// chatUpdate logs the match messages received and says the next line of
// --chat-file once a second while playing.
func (p *playLoop) chatUpdate(now time.Time) {
	for _, m := range p.s.Chat() {
		switch m.Kind {
		case rewind.ChatRefused:
			p.log.Warn("chat refused", "reason", m.Text)
		case rewind.ChatName:
			p.log.Info("name", "player", m.From, "name", m.Text)
		case rewind.ChatReady:
			p.log.Info("ready", "player", m.From, "name", m.Name, "ready", m.Text == "1")
		case rewind.ChatStart:
			p.log.Info("match start", "text", m.Text)
		case rewind.ChatEnd:
			p.log.Info("match end", "results", m.Text)
		case rewind.ChatGame:
			p.log.Info("game message", "from", m.From, "type", m.Type, "bytes", len(m.Text))
		default:
			p.log.Info("chat", "from", m.From, "name", m.Name, "text", m.Text)
		}
	}
	if len(p.chat) == 0 || now.Before(p.chatAt) || p.s.State() != rewind.Playing {
		return
	}
	p.chatAt = now.Add(time.Second)
	if err := p.s.Say(p.chat[0]); err != nil && len(p.chat[0]) <= 255 {
		return // 64 lines wait for the server: try again in a second
	} else if err != nil {
		p.log.Warn("chat line too long for the wire, skipped", "bytes", len(p.chat[0]))
	}
	p.chat = p.chat[1:]
}

// parseInputDelay reads --input-delay: empty (the default), a number of
// ticks 0..60, or auto (lockstep only).
func parseInputDelay(v string, lockstep bool) (delay int, auto bool, err error) {
	switch {
	case v == "":
		return 0, false, nil
	case v == "auto" && lockstep:
		return 0, true, nil
	case v == "auto":
		return 0, false, usageError{Err: errors.New("--input-delay auto: only with --lockstep")}
	}
	d, err := strconv.Atoi(v)
	if err != nil || d < 0 || d > 60 {
		return 0, false, usageError{Err: fmt.Errorf("--input-delay %s: want 0..60 or auto", v)}
	}
	return d, false, nil
}

// playSession is what play uses of a rewind.Session, whatever the
// game's input type.
type playSession interface {
	Player() (rewind.PlayerID, bool)
	Name(p rewind.PlayerID) string
	Chat() []rewind.ChatMessage
	State() rewind.State
	Say(text string) error
	SetName(name string) error
	SetReady(ready bool) error
	Migrations() int
	Hosting() bool
	ServerStats() (rewind.ServerStats, bool)
	Stats() rewind.Stats
	Run(ctx context.Context) error
	Close() error
	Settings() []byte
	Addrs() (local, remote string)
}

// connectPlay starts a session of g over UDP (--connect; *addr, the
// server's key checked by keys) or in a room (--join; *addr becomes where
// the room is), playing the bot's input function.
func connectPlay(ctx context.Context, g games.Game, bot func(me rewind.PlayerID, tick uint32) games.Input,
	jf *joinFlags, addr *string, opts rewind.Options, timeout time.Duration, keys *serverKeyCheck) (playSession, error) {
	var s *rewind.Session[games.Input]
	var err error
	if jf.code != "" {
		if s, *addr, err = joinRoom(ctx, jf, g, opts); err != nil {
			return nil, err
		}
	} else {
		s, err = rewind.ConnectUDP(ctx, g, *addr, rewind.UDPOptions{
			Options: opts,
			UDP: rewind.UDPConfig{HandshakeTimeout: timeout, IdleTimeout: timeout,
				ServerKey: keys.pin, VerifyServerKey: keys.verify},
		})
		if err != nil {
			return nil, dialError(*addr, timeout, err)
		}
		if err := keys.connected(); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.SetInputFunc(func(t uint32) games.Input {
		id, _ := s.Player() // lock-free: the input function runs inside Update
		return bot(id, t)
	})
	return s, nil
}

// playLoop watches a session (its OnUpdate hook and client callbacks):
// it stops Run at --until-tick, keeping the hash of exactly that tick,
// and logs the welcome and a status line every so often. Every method
// runs on Run's goroutine.
type playLoop struct {
	s      playSession
	until  uint32
	hash   uint64
	got    bool
	log    *slog.Logger
	every  time.Duration
	next   time.Time
	joined bool
	stdout io.Writer

	// A play that hosts the match after a migration serves on past
	// --until-tick until no other player is left for timeout.
	timeout time.Duration
	serving bool
	alone   time.Time

	desyncAtUntil bool
	rebased       uint32       // the tick past until a rebase moved it to (0: none)
	watch         bool         // rewind watch: a spectator
	scenes        bool         // the game hides information (games.Entry.Hidden)
	entry         *games.Entry // the game played
	waiting       uint64       // the players the server last said it waits for
	chat          []string     // --chat-file's lines still to say
	chatAt        time.Time    // when the next may be said
}

func (p *playLoop) onVerified(tick uint32, hash uint64) {
	if p.until != 0 && tick == p.until {
		p.hash, p.got = hash, true
		if p.scenes {
			// A game with hidden information mispredicts what Step reads
			// of it and repairs that (docs/scenes.md): verified after
			// the repair, the tick is not a desync.
			p.desyncAtUntil = false
		}
	}
}

// settings are the host's match settings as the game describes them (for
// the welcome's log line; none for a game without).
func (p *playLoop) settings() []any {
	if p.entry == nil || !p.entry.HostSettings || len(p.s.Settings()) == 0 {
		return nil
	}
	g, err := p.entry.FromSettings(p.s.Settings())
	if err != nil {
		return nil
	}
	v := p.entry.Values(g)
	var pairs []any
	for _, s := range p.entry.Settings {
		pairs = append(pairs, s.Name, v[s.Name])
	}
	return append(pairs, "tick_rate", v[games.TickRate])
}

// reached is the tick the play stopped at (errReached) and its hash:
// --until-tick's, or the later tick a rebase moved it to.
func (p *playLoop) reached() (uint32, uint64) {
	if p.rebased != 0 {
		return p.rebased, p.hash
	}
	return p.until, p.hash
}

func (p *playLoop) onDesync(tick uint32, ours, theirs uint64) {
	p.log.Warn("desync", "tick", tick, "ours", fmt.Sprintf("%016x", ours), "server", fmt.Sprintf("%016x", theirs))
	if tick == p.until {
		p.desyncAtUntil = true
	}
}

// onUpdate is the session's OnUpdate hook: it logs, and stops Run (with
// errReached) once --until-tick is verified.
func (p *playLoop) onUpdate(now time.Time, st rewind.Stats) error {
	if !p.joined {
		if id, ok := p.s.Player(); ok {
			p.joined = true
			attrs := append([]any{"player", id}, p.settings()...)
			p.log.Info("welcomed", attrs...)
			fmt.Fprintf(p.stdout, "player=%d\n", id)
		} else if p.watch && p.s.State() == rewind.Playing {
			// A spectator has no player id; it logs the match's
			// settings it took all the same.
			p.joined = true
			attrs := append([]any{"spectator", true}, p.settings()...)
			p.log.Info("welcomed", attrs...)
		}
	}
	if p.every > 0 && !now.Before(p.next) {
		p.next = now.Add(p.every)
		p.log.Info("status", "tick", st.Predicted, "verified", st.Verified,
			"ping_ms", fmt.Sprintf("%.1f", float64(st.Ping)/float64(time.Millisecond)),
			"rollbacks", st.Rollbacks, "desyncs", st.Desyncs, "resyncs", st.Resyncs,
			"migrations", p.s.Migrations(), "hosting", p.s.Hosting(), "state", p.s.State(),
			"waiting_for", server.WaitingIDs(st.WaitingFor))
	}
	p.chatUpdate(now)
	if st.WaitingFor != p.waiting {
		p.waiting = st.WaitingFor
		if st.WaitingFor == 0 {
			p.log.Info("waiting", "waiting_for", "")
		} else {
			p.log.Info("waiting", "waiting_for", server.WaitingIDs(st.WaitingFor), "names", p.waitingNames(st.WaitingFor))
		}
	}
	if p.until == 0 {
		return nil
	}
	if p.got {
		return p.stopOrServe(now)
	}
	if st.Verified > p.until {
		// Rebased past --until-tick (a resync, a join into a running
		// match, a migration's handoff: the server's world of a later
		// tick replaced its own): it never steps that tick, and stops
		// at the tick it has, done; the final line names that tick.
		p.rebased, p.hash, p.got = st.Verified, st.VerifiedHash, true
		p.log.Info("rebased past --until-tick: stopping at the verified tick this player has", "until", p.until, "verified", st.Verified)
		return p.stopOrServe(now)
	}
	return nil
}

// stopOrServe stops Run once --until-tick is verified, unless this play
// hosts the match (it took the hosting over): then it serves on until no
// other player has been in the match for --timeout, so that the others
// are never stranded by the host's own stop.
func (p *playLoop) stopOrServe(now time.Time) error {
	if !p.s.Hosting() {
		return errReached
	}
	if !p.serving {
		p.serving = true
		p.log.Info("serving on: this player hosts the match", "until", "no other player is left for --timeout")
	}
	if ss, ok := p.s.ServerStats(); ok && ss.Players > 1 {
		p.alone = time.Time{}
		return nil
	}
	if p.alone.IsZero() {
		p.alone = now
	}
	if now.Sub(p.alone) >= p.timeout {
		return errReached
	}
	return nil
}

// dialError turns a failed UDP handshake into one clear line.
func dialError(addr string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, rewind.ErrHandshake):
		return fmt.Errorf("no server answered at %s within %v (--timeout): start one with `rewind serve --udp %s`, or check the address (a room of `rewind demo` or `rewind serve --relay` is joined with --join CODE)", addr, timeout, addr)
	case errors.Is(err, rewind.ErrConnRefused):
		return fmt.Errorf("the server at %s refused the connection: %v", addr, err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted while connecting to %s", addr)
	case errors.Is(err, rewind.ErrServerKey):
		return fmt.Errorf("the server at %s is not the one pinned (--server-key, --known-servers): %v", addr, err)
	}
	return fmt.Errorf("cannot connect to %s: %v", addr, err)
}

// sessionError turns a session's failure into one clear line.
func sessionError(addr string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, rewind.ErrRefused):
		return fmt.Errorf("join refused by the server at %s: %s", addr, refusalReason(err))
	case errors.Is(err, rewind.ErrTimeout):
		return fmt.Errorf("the server at %s went silent for over %v (--timeout)", addr, timeout)
	case errors.Is(err, rewind.ErrKicked):
		return fmt.Errorf("dropped by the server at %s: %v", addr, err)
	case errors.Is(err, rewind.ErrPeerGone):
		return fmt.Errorf("the server at %s ended the session (it stopped, or dropped this player)", addr)
	}
	return err
}

// refusalReason names the server's reason for a refusal, and what to do
// where there is something.
func refusalReason(err error) string {
	var r *rewind.RefusedError
	if !errors.As(err, &r) {
		return err.Error()
	}
	switch r.Reason {
	case codec.ReasonFull:
		return "match full (it has all the players it takes: serve --max-players): wait for a player to leave, or start a match of your own"
	case codec.ReasonGame:
		if r.Game != "" {
			return "incompatible game: the match plays " + r.Game + " (or plays it with other settings, or from another build); pass --game " + r.Game + " and the host's --grid, --tick-rate if it set them"
		}
		return "incompatible game: the match plays another game, or the same game with other settings or from another build; pass the host's --game (and --grid, --tick-rate if it set them)"
	case codec.ReasonProtocol:
		return "incompatible protocol: the server is another version of rewind; use the same one (go install github.com/rewindnet/rewind/cmd/rewind@VERSION)"
	}
	return r.Reason.String()
}
