package webdoom

import (
	"github.com/rewindnet/rewind/internal/logsample"
	"log/slog"
	"slices"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// The WebDoom relay core: WebDoom's lobby and tic relay as a single-threaded
// state machine. It is fed events (a socket opened, a message arrived, a
// socket closed, time passed) each with the time now, and answers with
// actions for the network layer (send, send the history, close, terminate).
// It has no goroutines and reads no clock, so every timer is tested in
// made-up time.
//
// Protocol flow (docs/webdoom.md has the whole of it):
//
//	lobby:  connect → welcome + roster …  start → countdown 3, 2, 1 → launch
//	game:   /ws/game?slot=N ← 12-byte cmds; → 38-byte bundles, one per tic
//	        tic T is sealed the moment every in-game player's cmd for T is in;
//	        a sweep every 50 ms fabricates for laggards silent ≥ 250 ms and
//	        drops laggards silent > 5 s
//	drop-in: any free slot's game socket gets the whole history, then live
//	        bundles; its first cmd schedules it live 12 tics on
//	spectate: history, then live bundles; nothing read is acted on
//	end:    no in-game player left → game and spectator sockets close, the
//	        lobby reopens

// ConnID names one WebSocket connection; the network layer assigns
// them, never 0.
type ConnID uint64

// ActionKind says what a Action asks the network layer to do.
type ActionKind uint8

// Action kinds.
const (
	// SendText sends Data as one text message (lobby JSON).
	SendText ActionKind = iota + 1
	// SendBinary sends Data as one binary message (a bundle).
	SendBinary
	// SendHistory sends every bundle of History, in order.
	SendHistory
	// Close closes the socket with a close frame after what is queued.
	Close
	// Terminate ends the socket without a close frame (a refusal)
	// after what is queued.
	Terminate
)

// Action is one thing the core asks the network layer to do. Data
// and History are never modified afterwards and may be shared.
type Action struct {
	Kind    ActionKind
	Conn    ConnID  // the connection acted on
	Data    []byte  // the message, for SendText and SendBinary
	History History // for SendHistory
	Reason  string  // for Close and Terminate
}

type webDoomEndpoint uint8

const (
	wdLobby webDoomEndpoint = iota + 1
	wdGame
	wdSpectate
)

// webDoomConn is what the core knows of one open socket.
type webDoomConn struct {
	endpoint  webDoomEndpoint
	closing   bool // told to close or terminate: nothing more is sent or read
	rateStart time.Time
	rateCount int
	// lobby
	seat     int // lobby seat (slot) before a game, or -1 for an observer
	reserved int // drop-in reservation, or -1
	// game and spectator
	slot    int
	session *webDoomSession // the session it belongs to (nil: refused)
}

type webDoomSeat struct {
	conn  ConnID
	name  string    // "" = the color name
	heard time.Time // the seat's last message (Config.LobbyIdle)
}

// Core is the relay's state machine. Use one from one goroutine.
type Core struct {
	cfg     Config
	log     *slog.Logger
	stats   *counters
	conns   map[ConnID]*webDoomConn
	seats   [wire.Slots]*webDoomSeat
	params  wire.Params
	session *webDoomSession
	out     []Action
	now     time.Time // the time of the call being handled (for the refusal log)
	refLog  logsample.Sampler
}

// NewCore returns a core with no game running. Zero settings take
// WebDoom's defaults; log may be nil.
func NewCore(cfg Config, log *slog.Logger) *Core {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Core{
		cfg: cfg, log: log, stats: &counters{},
		conns:  map[ConnID]*webDoomConn{},
		params: wire.DefaultParams(),
	}
}

// Stats returns a snapshot of the core's counters (safe to call from any
// goroutine).
func (c *Core) Stats() Stats { return c.stats.snapshot() }

// Status is a summary of what runs now.
type Status struct {
	Session    bool   // a session exists (counting down or launched)
	Launched   bool   // it has launched
	Players    int    // in-game players
	Spectators int    // spectators
	Lobby      int    // lobby seats
	Conns      int    // open connections
	Tic        uint32 // the next tic to seal
	History    int    // sealed tics held
}

// Status returns a summary of the core's state.
func (c *Core) Status() Status {
	st := Status{Conns: len(c.conns)}
	for _, s := range c.seats {
		if s != nil {
			st.Lobby++
		}
	}
	if s := c.session; s != nil {
		st.Session, st.Launched, st.Tic, st.History = true, s.launched, s.next, s.history.Len()
		st.Spectators = len(s.spectators)
		for i := range s.players {
			if s.players[i].ingame {
				st.Players++
			}
		}
	}
	return st
}

// NextDeadline returns when Advance next has work to do, if ever.
func (c *Core) NextDeadline() (time.Time, bool) {
	s := c.session
	switch {
	case s == nil:
		return c.lobbyDeadline()
	case !s.launched:
		return s.nextCountdown, true
	default:
		return s.nextSweep, true
	}
}

// Advance runs the timers due at now: countdown steps, launch, and the
// stall/drop sweep.
func (c *Core) Advance(now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	if c.session == nil {
		c.lobbyIdle(now)
	}
	for s := c.session; s != nil && s == c.session && !s.launched && !now.Before(s.nextCountdown); {
		c.countdownStep(now)
	}
	if s := c.session; s != nil && s.launched && !now.Before(s.nextSweep) {
		s.nextSweep = s.nextSweep.Add(c.cfg.Sweep)
		if !s.nextSweep.After(now) {
			s.nextSweep = now.Add(c.cfg.Sweep)
		}
		c.sweep(now)
	}
	return c.out
}

// open registers a connection, refusing it past the connection cap.
func (c *Core) open(id ConnID, ep webDoomEndpoint) *webDoomConn {
	if len(c.conns) >= c.cfg.MaxConns {
		c.refuse(id, nil, RefuseConnCap, "endpoint", wdEndpointName(ep), "conns", len(c.conns))
		return nil
	}
	cn := &webDoomConn{endpoint: ep, seat: -1, reserved: -1, slot: -1}
	c.conns[id] = cn
	return cn
}

func wdEndpointName(ep webDoomEndpoint) string {
	return [...]string{"", "lobby", "game", "spectate"}[ep]
}

// Closed reports that connection id's socket closed, for whatever reason.
func (c *Core) Closed(id ConnID, now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	cn := c.conns[id]
	if cn == nil {
		return c.out
	}
	delete(c.conns, id)
	switch cn.endpoint {
	case wdLobby:
		c.lobbyClosed(id, cn)
	case wdGame:
		c.gameClosed(id, cn)
	case wdSpectate:
		if s := cn.session; s != nil && s == c.session {
			s.spectators = slices.DeleteFunc(s.spectators, func(x ConnID) bool { return x == id })
			c.log.Info("webdoom: spectator left", "conn", id)
		}
	}
	return c.out
}

// incoming returns the open connection id of endpoint ep that a message
// came from, after counting the message against its rate cap; nil means
// the message is ignored (unknown, closing or other endpoint, or over the
// cap, which terminates the connection).
func (c *Core) incoming(id ConnID, ep webDoomEndpoint, now time.Time) *webDoomConn {
	cn := c.conns[id]
	if cn == nil || cn.closing || cn.endpoint != ep || !c.rateOK(id, cn, now) {
		return nil
	}
	return cn
}

// rateOK counts a message against the connection's rate cap (a tumbling
// window) and terminates the connection past it.
func (c *Core) rateOK(id ConnID, cn *webDoomConn, now time.Time) bool {
	if cn.rateCount == 0 || now.Sub(cn.rateStart) >= c.cfg.RateWindow {
		cn.rateStart, cn.rateCount = now, 0
	}
	cn.rateCount++
	if cn.rateCount > c.cfg.RateCap {
		c.refuse(id, cn, RefuseRateCap, "endpoint", wdEndpointName(cn.endpoint))
		return false
	}
	return true
}

// send queues a message for an open connection.
func (c *Core) send(id ConnID, kind ActionKind, data []byte) {
	if cn := c.conns[id]; cn != nil && !cn.closing {
		c.out = append(c.out, Action{Kind: kind, Conn: id, Data: data})
	}
}

type wdAppender interface{ Append([]byte) []byte }

func (c *Core) sendJSON(id ConnID, m wdAppender) {
	c.send(id, SendText, m.Append(nil))
}

// refuse terminates a connection (no close frame), counting and logging why.
func (c *Core) refuse(id ConnID, cn *webDoomConn, reason string, attrs ...any) {
	if cn != nil {
		if cn.closing {
			return
		}
		cn.closing = true
	}
	c.stats.refuse(reason)
	c.refLog.Log(c.log, c.now, "webdoom: refused", "reason", reason, append([]any{"conn", id}, attrs...)...)
	c.out = append(c.out, Action{Kind: Terminate, Conn: id, Reason: reason})
}

// closeConn closes a connection with a close frame after what is queued.
func (c *Core) closeConn(id ConnID, reason string) {
	cn := c.conns[id]
	if cn == nil || cn.closing {
		return
	}
	cn.closing = true
	c.out = append(c.out, Action{Kind: Close, Conn: id, Reason: reason})
}
