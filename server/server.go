// Package server is rewind's authoritative match: it ticks the one true
// world at the game's tick rate, queues every player's inputs by tick,
// sends every player each tick (joins and leaves, the inputs that changed,
// whose input was late, the world's hash, and how early that player's
// inputs arrive) and keeps History of ticks to send again until each
// player acknowledges them.
//
// A Server is a single-threaded state machine: the caller owns it and
// drives it with Update(now), giving the time as an argument. It reads no
// clock and opens no socket; datagrams come and go through the
// transport.Conn it was given. That is what lets a whole match run in
// made-up time over transport's network simulator.
//
// Protocol flow (one player):
//
//	client                         server
//	Hello      ------------------>  (new address: a player id; with a
//	                                cookie: the id it was given to)
//	           <------------------  Welcome (id, cookie, tick rate, tick T)
//	           <------------------  WorldChunks: the world after T (T > 0)
//	WorldAck   ------------------>  every chunk resent until acknowledged
//	Inputs     ------------------>  queued by tick; ack of ticks
//	           <------------------  Ticks (every unacknowledged tick, up
//	                                to a datagram; ack of inputs; margin)
//	Bye        ------------------>  leave event in the next tick
//
// Page hashes and pages of any tick in the history (rebuilt from a
// checkpoint) answer a client's repair; a player further behind than the
// history is rebased to the world of the last tick. docs/networking.md
// tells the whole story.
//
// A player's identity is its connection's address: nothing a client writes
// in a datagram names the player it speaks for.
package server

import (
	"bytes"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Server is an authoritative match of game g over one transport.Conn.
type Server[I any] struct {
	failure  error // the game's Step failed (game.StepFailer): the match ends
	cfg      Config
	g        game.Game[I]
	w        *world.World
	it       *inputs.Type[I]
	conn     transport.Conn
	tickRate int
	dt       time.Duration
	size     int // packed input bytes

	started   bool
	rec       replay.Sink // Config.Record or NewRecorder's (record.go)
	recording bool        // rec was picked (and has its start)
	start     time.Time   // tick t runs at start + t*dt
	tick      uint32      // the last tick run (0: none yet)
	lastNow   time.Time
	// lastRound is when ticks were last sent.
	lastRound time.Time

	players []*player            // by id
	specs   []*player            // spectators (spectator.go)
	spares  []*reliable.Resender // of departed players, for the next (resenders.go)
	byAddr  map[transport.Addr]*player
	joined  int // players with an id

	hist   []record // ring of kept ticks, hmask+1 slots
	hmask  uint32
	qmask  uint32 // input queue ring mask
	window uint32 // input window in ticks

	cur     []byte // packed inputs of the tick being run, n×size
	present []bool
	typed   []I
	tk      game.Tick[I]
	events  []game.Event

	wire  wireState
	mod   moduleSource  // the game's module, sent on request (module.go)
	scn   sceneState    // private scenes (scenes.go)
	ho    handoverState // host migration data (handover.go)
	rs    resumeState   // a match taken over (resume.go)
	stall stallState    // the hold of the next tick (stall.go)
	fin   endState      // the match's end (end.go)
	// closedJoins: new players are refused (SetClosed, admin.go).
	closedJoins bool
	// msgSizes are the payload sizes of the game's typed match messages
	// by type id (0: not a type); nil when the game registers none
	// (game.Messenger), and any type is relayed (chat.go).
	msgSizes *[256]int

	chatBacklog [][]byte // the latest chat lines, announcements and game messages, for newcomers (chat.go)

	// History of worlds (history.go): checkpoints, and the world at an
	// earlier tick rebuilt from one.
	ckEvery      uint32
	cks          []checkpoint
	past         pastWorld
	pastTyped    []I
	liveHashes   []uint64
	liveHashTick uint32
	liveHashed   bool
	reserved     []reservation  // by id: who may rejoin with a cookie
	setup        world.Snapshot // the world as Setup made it (tick 0)

	stats Stats
}

// record is one kept tick.
type record struct {
	tick   uint32
	events []game.Event
	inputs []byte   // every player's packed input in this tick, n×size
	late   []uint64 // bit p: player p's input was late and repeated
	hash   uint64
	body   []byte     // the tick body every client gets (codec.TickEncoder)
	vb     viewBodies // with scenes: the body per view (scenes.go)
	// roster is the tick stream's roster after this tick, kept while a
	// delayed spectator watches (a welcome to this tick's world needs
	// it: spectator.go); rosterOK says it is this tick's.
	roster   []byte
	rosterOK bool
}

// Stats counts what a server did.
type Stats struct {
	// Tick is the last tick run.
	Tick uint32
	// Players is how many players are in the match.
	Players int
	// LateInputs counts player-ticks whose input had not arrived in time.
	LateInputs uint64
	// PlayerTicks counts ticks times players present.
	PlayerTicks uint64
	// BytesIn and BytesOut count datagram payload bytes.
	BytesIn, BytesOut uint64
	// DatagramsIn and DatagramsOut count datagrams.
	DatagramsIn, DatagramsOut uint64
	// BadDatagrams counts datagrams that failed to parse or came from an
	// unknown address with something other than a hello.
	BadDatagrams uint64
	// Joins and Leaves count join and leave events.
	Joins, Leaves uint64
	// InputChanges counts player-ticks whose input differed from the
	// player's input of the tick before: real play, which an idle
	// player holding a seat does not make (rooms.ServeOptions'
	// unused timeout reads it).
	InputChanges uint64
	// Refused counts hellos answered with a refusal.
	Refused uint64
	// Rejoins counts hellos with a valid cookie; Rebases counts players
	// moved to a newer tick's world (fallen behind, or back from a new
	// address).
	Rejoins, Rebases uint64
	// Transfers counts world transfers started, TransferBytes their
	// blobs' bytes, ChunksOut the chunks sent (resends included),
	// WholeWorlds the transfers of a whole world, PagesSent the pages
	// sent on request, PageHashRequests the requests for page hashes.
	Transfers, TransferBytes, ChunksOut uint64
	WholeWorlds, PagesSent              uint64
	PageHashRequests                    uint64
	// FetchesLimited counts page hash and page requests ignored for
	// coming sooner than FetchInterval after the last one.
	FetchesLimited uint64
	// HandoversOut counts handover datagrams sent (Config.HostMigration).
	HandoversOut uint64
	// Stalls counts holds of the match under the stall policy; StallTime
	// is their time in all and LongestStall the longest.
	Stalls                  uint64
	StallTime, LongestStall time.Duration
	// ChatLines counts chat lines relayed; ChatRefused the match messages
	// refused (with a reason to the sender); ChatDropped the messages not
	// queued for a player that acknowledged none of the last 64.
	ChatLines, ChatRefused, ChatDropped uint64
	// GameMessages counts typed game messages relayed (codec.ChatGame).
	GameMessages uint64
	// ReplayMismatches counts rebuilds of an earlier tick's world that
	// did not hash as that tick did (a non-deterministic game).
	ReplayMismatches uint64
	// Spectators counts spectators admitted; SpectatorDropped counts
	// what spectators sent that the server does not read (inputs, chat,
	// anything but acks, pings, bye and world transfer messages).
	Spectators       uint64
	SpectatorDropped uint64
	// ModuleRequests counts requests for pieces of the game's module
	// (module.go); ModuleRefused those for another module or in a match
	// without one; ModuleChunksOut the pieces sent; ModuleLimited the
	// requests answered in part for their connection's rate.
	ModuleRequests, ModuleRefused  uint64
	ModuleChunksOut, ModuleLimited uint64
}

// New returns a server for game g that talks through conn. The world is
// registered (unless cfg.Schema is given) and set up; the first tick runs
// once cfg.StartPlayers players have said hello.
func New[I any](g game.Game[I], conn transport.Conn, cfg Config) (*Server[I], error) {
	hashBits := cfg.HashBits // 0: the default, which depends on scenes
	cfg = cfg.withDefaults()
	it, err := inputs.TypeOf[I](g)
	if err != nil {
		return nil, fmt.Errorf("server: input type: %w", err)
	}
	_, w, err := game.NewWorld(g, cfg.Schema)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	rate := game.RateOf(g)
	s := &Server[I]{
		cfg:      cfg,
		g:        g,
		w:        w,
		it:       it,
		conn:     conn,
		tickRate: rate,
		dt:       time.Second / time.Duration(rate),
		size:     it.Size(),
		byAddr:   make(map[transport.Addr]*player),
		players:  make([]*player, cfg.MaxPlayers),
	}
	s.window = uint32(cfg.InputWindow/s.dt) + 1
	hticks := int(cfg.History/s.dt) + 1
	hs := 1
	for hs < hticks {
		hs <<= 1
	}
	s.hmask = uint32(hs - 1)
	s.hist = make([]record, hs)
	words := (cfg.MaxPlayers + 63) / 64
	for i := range s.hist {
		s.hist[i].inputs = make([]byte, cfg.MaxPlayers*s.size)
		s.hist[i].late = make([]uint64, words)
	}
	qs := 1
	for qs < int(s.window)+2 {
		qs <<= 1
	}
	s.qmask = uint32(qs - 1)
	s.cur = make([]byte, cfg.MaxPlayers*s.size)
	s.present = make([]bool, cfg.MaxPlayers)
	s.typed = make([]I, cfg.MaxPlayers)
	if err := s.initScenes(hashBits); err != nil {
		return nil, err
	}
	s.hist[0].hash = w.Hash()
	w.SnapshotInto(&s.setup)
	s.reserved = make([]reservation, cfg.MaxPlayers)
	if err := s.initWire(); err != nil {
		return nil, err
	}
	if err := s.initMessages(); err != nil {
		return nil, err
	}
	s.initModule()
	s.initHistory()
	if cfg.Resume != nil {
		if err := s.resume(cfg.Resume); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// World returns the server's world at the last tick run. Callers must not
// change it.
func (s *Server[I]) World() *world.World { return s.w }

// Tick returns the last tick run (0 before the match starts).
func (s *Server[I]) Tick() uint32 { return s.tick }

// TickRate returns the match's ticks per second.
func (s *Server[I]) TickRate() int { return s.tickRate }

// Started reports whether the first tick has been scheduled.
func (s *Server[I]) Started() bool { return s.started }

// Stats returns the server's counters.
func (s *Server[I]) Stats() Stats {
	st := s.stats
	st.Tick = s.tick
	st.Players = 0
	for _, p := range s.players {
		if p != nil {
			st.Players++
		}
	}
	return st
}

// NextDeadline returns when Update should next run for the ticks to keep
// time: the time of the next tick (or the zero Time before the match
// starts; a tick after the last Update once the match is over). Datagrams arriving earlier may be handled by calling Update
// sooner.
func (s *Server[I]) NextDeadline() time.Time {
	if !s.started {
		return time.Time{}
	}
	if s.stall.held || s.ended() {
		// Held, or over (no tick runs: resends and goodbyes once a
		// tick): look again in a tick (and at every datagram).
		return s.lastNow.Add(s.dt)
	}
	return s.tickTime(s.tick + 1)
}

// origin is tick 0's time for a match starting at now: now, or
// Config.TickOrigin's time when it is within a tick period before now.
func (s *Server[I]) origin(now time.Time) time.Time {
	if s.cfg.TickOrigin == nil {
		return now
	}
	if o := s.cfg.TickOrigin(now); !o.After(now) && now.Sub(o) < s.dt {
		return o
	}
	return now
}

func (s *Server[I]) tickTime(t uint32) time.Time {
	return s.start.Add(time.Duration(t) * s.dt)
}

// Update handles every waiting datagram, runs every tick due by now, and
// sends what the players lack. It returns an error only when the Conn
// fails; bad datagrams are counted and dropped.
func (s *Server[I]) Update(now time.Time) error {
	if now.Before(s.lastNow) {
		now = s.lastNow
	}
	prev := s.lastNow
	s.lastNow = now
	s.forgivePause(prev, now) // pause.go
	if s.rs.pending {
		s.startResumed(now)
	}
	if err := s.receive(prev, now); err != nil {
		return err
	}
	for _, p := range s.players {
		if p != nil && p.xfer != nil && !p.leaving {
			s.sendChunks(now, p)
		}
	}
	for _, p := range s.specs {
		if p.xfer != nil && !p.leaving {
			s.sendChunks(now, p) // a lost chunk of a spectator's repair too
		}
	}
	if !s.started && s.ready() >= s.cfg.StartPlayers {
		s.started = true
		s.start = s.origin(now)
	}
	ran := false
	for s.started && !s.ended() && (s.stall.held || !now.Before(s.tickTime(s.tick+1))) {
		s.dropSilent(now)
		if s.hold(now) {
			break
		}
		s.runTick()
		ran = true
		if s.failure != nil {
			s.End(now)
			break
		}
	}
	if s.fin.on {
		if err := s.endPeers(now); err != nil {
			return err
		}
	}
	// Send after every tick, and once a tick's time otherwise (resends
	// after the match ended).
	if ran || (s.started && now.Sub(s.lastRound) >= s.dt) {
		s.lastRound = now
		if err := s.sendTicks(now); err != nil {
			return err
		}
		if err := s.sendWaiting(); err != nil {
			return err
		}
		if err := s.sendChats(now); err != nil {
			return err
		}
		return s.sendHandover(now)
	}
	return nil
}

// Failure returns the error with which the game's Step failed (a
// WebAssembly module's trap or overrun budget: game.StepFailer), which
// ended the match after that tick, or nil.
func (s *Server[I]) Failure() error { return s.failure }

// ended reports whether the match has run its MaxTicks, or was ended.
func (s *Server[I]) ended() bool { return s.fin.on || s.cfg.MaxTicks > 0 && s.tick >= s.cfg.MaxTicks }

// Ended reports whether the match has run Config.MaxTicks ticks or was
// ended (End): it then only sends the players the ticks they lack.
func (s *Server[I]) Ended() bool { return s.ended() }

// runTick runs tick s.tick+1: joins and leaves, every player's input (or
// its last one, marked late), the game's Step, the hash, the record.
func (s *Server[I]) runTick() {
	s.recordStart()
	t := s.tick + 1
	rec := &s.hist[t&s.hmask]
	rec.tick = t
	s.events = s.events[:0]
	clear(rec.late)
	for id, p := range s.players {
		if p == nil {
			continue
		}
		switch {
		case p.leaving && p.present:
			p.present = false
			s.present[id] = false
			s.events = append(s.events, game.Event{Kind: game.Leave, Player: game.PlayerID(id)})
			s.stats.Leaves++
			s.mustEncode(s.wire.enc.Leave(uint8(id)))
		case !p.present && !p.leaving:
			p.present = true
			p.joinTick = t
			s.present[id] = true
			clear(p.last)
			s.events = append(s.events, game.Event{Kind: game.Join, Player: game.PlayerID(id)})
			s.stats.Joins++
			s.mustEncode(s.wire.enc.Join(uint8(id)))
		}
		if p.leaving {
			s.removePlayer(p)
			continue
		}
		if !s.tickInput(p, t) {
			rec.late[id/64] |= 1 << (id % 64)
		}
		s.stats.PlayerTicks++
	}
	for id := range s.players {
		dst := s.cur[id*s.size : (id+1)*s.size]
		if p := s.players[id]; p != nil && p.present {
			copy(dst, p.last)
		} else {
			clear(dst)
		}
		s.it.Unpack(dst, &s.typed[id])
	}
	s.tk.Number = t
	s.tk.Events = s.events
	s.tk.Inputs = s.typed
	s.tk.Present = s.present
	s.g.Step(s.w, &s.tk)
	if f, ok := game.As[game.StepFailer](s.g); ok && s.failure == nil {
		s.failure = f.StepErr(s.w)
	}
	rec.events = append(rec.events[:0], s.events...)
	copy(rec.inputs, s.cur)
	rec.hash = s.w.Hash()
	rec.body = s.wire.enc.AppendTick(rec.body[:0], rec.hash)
	if s.scn.on {
		s.viewBodies(rec)
	}
	s.keepRoster(rec)
	s.tick = t
	if t%s.ckEvery == 0 {
		s.checkpoint(t)
	}
	if s.cfg.OnTick != nil {
		s.cfg.OnTick(t, s.w, rec.hash)
	}
	if s.rec != nil {
		s.rec.RecordTick(t, rec.events, rec.inputs, rec.hash, s.w)
	}
}

// oldestKept returns the oldest tick still in the history.
func (s *Server[I]) oldestKept() uint32 {
	n := s.hmask + 1
	if s.tick < n {
		return 1
	}
	return s.tick - n + 1
}

// dropSilent marks players not heard from for PlayerTimeout as leaving.
func (s *Server[I]) dropSilent(now time.Time) {
	for _, p := range s.players {
		if p == nil || p.leaving {
			continue
		}
		if !p.awaitUntil.IsZero() {
			p.leaving = !now.Before(p.awaitUntil) // a player taken over that did not come back
			continue
		}
		if now.Sub(p.lastHeard) > s.cfg.PlayerTimeout {
			p.leaving = true
		}
	}
}

// ready counts the players who have been heard from since their welcome:
// the match starts when StartPlayers are, so that a lost welcome does not
// make a player miss the first ticks.
func (s *Server[I]) ready() int {
	n := 0
	for _, p := range s.players {
		if p != nil && p.welcomed {
			n++
		}
	}
	return n
}

// tickInput makes p's input of tick t its last and encodes it, counting
// a change; with none arrived in time, p's last input stays (encoded as
// late, counted) and tickInput reports false.
func (s *Server[I]) tickInput(p *player, t uint32) bool {
	slot := t & s.qmask
	if p.qAt[slot] != t {
		s.wire.enc.SetLate(uint8(p.id))
		s.stats.LateInputs++
		p.late++
		return false
	}
	if !bytes.Equal(p.last, p.q[slot]) {
		s.stats.InputChanges++
	}
	copy(p.last, p.q[slot])
	s.mustEncode(s.wire.enc.SetInput(uint8(p.id), s.relayed(p.last)))
	return true
}

// removePlayer forgets a player after its leave event, keeping its id and
// cookie hashes for RejoinWindow.
func (s *Server[I]) removePlayer(p *player) {
	s.reserved[p.id] = reservation{hashes: p.cookies, until: s.lastNow.Add(s.cfg.RejoinWindow)}
	if p.welcomed {
		s.ho.departed.Add(1)
	}
	s.players[p.id] = nil
	s.present[p.id] = false
	delete(s.byAddr, p.addr)
	s.joined--
	s.freeResenders(p)
}
