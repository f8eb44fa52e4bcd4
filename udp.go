package rewind

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// UDPHostOptions configures a match hosted over UDP. The zero value hosts
// with every default.
type UDPHostOptions struct {
	// Server configures each match. Its StartPlayers says how many players
	// must have said hello before the first tick (default 1); its
	// PlayerTimeout also becomes the UDP idle timeout unless UDP sets one.
	Server server.Config
	// UDP configures the socket and its sessions.
	UDP transport.UDPConfig
	// Log, if set, gets the host's events: listening, a match starting
	// and ending, players joining and leaving.
	Log *slog.Logger
}

// UDPHost hosts matches of one game on a UDP socket: one match at a time,
// the authoritative server of package server over transport's UDP server.
// A match starts when Server.StartPlayers players have said hello, and
// ends when its last player has left (said bye or timed out); the next
// hello starts a new one. Run drives it in real time; Stats may be called
// from any goroutine meanwhile.
type UDPHost[I any] struct {
	mu     sync.Mutex
	conn   *transport.UDPServer
	m      matchHost[I]
	closed bool
}

// UDPHostStats is what a UDPHost has done.
type UDPHostStats struct {
	// Matches counts matches started; Running says whether one is running.
	Matches uint64
	Running bool
	// Match is the current match's counters (Tick is its last tick,
	// Players its players).
	Match server.Stats
	// Total sums every match's counters, the current one included; its
	// Tick is the number of ticks run in all matches and its Players the
	// current match's players.
	Total server.Stats
	// UDP is the socket's counters: every datagram, valid or not, with
	// what the transport refused and dropped.
	UDP transport.UDPStats
}

// HostUDP opens a UDP socket on addr ("127.0.0.1:0" picks a free port;
// Addr says which) and hosts matches of g on it. g is registered once;
// every match sets up a fresh world from it.
func HostUDP[I any](g Game[I], addr string, opts UDPHostOptions) (*UDPHost[I], error) {
	cfg, log, err := hostSetup(g, opts.Server, opts.Log)
	if err != nil {
		return nil, err
	}
	conn, err := transport.ListenUDP(addr, hostUDPConfig(opts.UDP, cfg))
	if err != nil {
		return nil, fmt.Errorf("rewind: host: %w", err)
	}
	h := &UDPHost[I]{conn: conn}
	if err := h.m.init(g, cfg, conn, log); err != nil {
		conn.Close()
		return nil, err
	}
	log.Info("listening", "udp", conn.UDPAddr().String(), "tick_rate", h.m.srv.TickRate(),
		"start_players", max(cfg.StartPlayers, 1))
	return h, nil
}

// Addr returns the socket's address.
func (h *UDPHost[I]) Addr() netip.AddrPort { return h.conn.UDPAddr() }

// Conn returns the host's UDP server (for its counters; the host owns it).
func (h *UDPHost[I]) Conn() *transport.UDPServer { return h.conn }

// Update runs the current match at now (see server.Server.Update), logs
// what changed, and starts a new match when the current one has emptied.
func (h *UDPHost[I]) Update(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("rewind: host %s: %w", h.conn.LocalAddr(), transport.ErrClosed)
	}
	return h.m.update(now)
}

// Run drives the host in real time until ctx is done (then it returns
// nil) or the socket fails. It does not close the host. It wakes when a
// datagram arrives (so that the server notes how early each input came)
// and at the time of the next tick, not on a fixed short period: every
// wake-up costs more CPU than the server's work for it
// (docs/benchmarks.md, Transport).
func (h *UDPHost[I]) Run(ctx context.Context) error {
	timer := time.NewTimer(h.m.period)
	defer timer.Stop()
	ready := h.conn.Ready()
	for {
		now := time.Now()
		if err := h.Update(now); err != nil {
			return err
		}
		h.mu.Lock()
		next := h.m.srv.NextDeadline()
		h.mu.Unlock()
		wait := h.m.period
		if !next.IsZero() {
			wait = min(max(next.Sub(now), 0), h.m.period)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-ready:
		}
	}
}

// Stats returns the host's counters. It is safe to call while Run runs.
func (h *UDPHost[I]) Stats() UDPHostStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	var s UDPHostStats
	s.Matches, s.Running, s.Match, s.Total = h.m.stats()
	s.UDP = h.conn.Stats()
	return s
}

// Close closes the socket, saying bye to every peer (best effort). The
// players' clients see the session end.
func (h *UDPHost[I]) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	h.m.log.Info("closing", "matches", h.m.matches)
	_ = h.m.srv.Shutdown() // a bye to every player
	return h.conn.Close()
}

// hostSetup registers g's schema into cfg unless it has one, and returns
// log, or a logger that discards, when log is nil.
func hostSetup[I any](g Game[I], cfg server.Config, log *slog.Logger) (server.Config, *slog.Logger, error) {
	if cfg.Schema == nil {
		schema := world.NewSchema()
		if err := g.Register(schema); err != nil {
			return cfg, nil, fmt.Errorf("rewind: register: %w", err)
		}
		cfg.Schema = schema
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return cfg, log, nil
}

// hostUDPConfig returns ucfg with its IdleTimeout defaulting to the
// server's PlayerTimeout.
func hostUDPConfig(ucfg transport.UDPConfig, cfg server.Config) transport.UDPConfig {
	if ucfg.IdleTimeout <= 0 && cfg.PlayerTimeout > 0 {
		ucfg.IdleTimeout = cfg.PlayerTimeout
	}
	return ucfg
}

// matchHost is the core of UDPHost and RoomHost: it runs one match at a
// time of a game over a server-side Conn, starting a new one when the
// current one has emptied, logs what happens, and sums every match's
// counters. Its owner locks around it.
type matchHost[I any] struct {
	g       Game[I]
	cfg     server.Config
	conn    transport.Conn
	tap     *refuseTap // conn as the server sees it: notes refusal reasons
	srv     *server.Server[I]
	log     *slog.Logger
	period  time.Duration
	matches uint64       // matches started
	done    server.Stats // the sum of ended matches
	last    server.Stats // the current match's stats at the last update
	started bool         // the current match had started at the last update
}

// init sets m up and creates its first match.
func (m *matchHost[I]) init(g Game[I], cfg server.Config, conn transport.Conn, log *slog.Logger) error {
	*m = matchHost[I]{g: g, cfg: cfg, conn: conn, log: log, period: tickPeriod(g)}
	return m.newMatch()
}

func (m *matchHost[I]) newMatch() error {
	m.tap = &refuseTap{Conn: m.conn}
	srv, err := server.New(m.g, m.tap, m.cfg)
	if err != nil {
		return fmt.Errorf("rewind: host: %w", err)
	}
	m.srv, m.last, m.started = srv, server.Stats{}, false
	return nil
}

// update runs the current match at now, logs what changed, and starts a
// new match when the current one has emptied.
func (m *matchHost[I]) update(now time.Time) error {
	if err := m.srv.Update(now); err != nil {
		return fmt.Errorf("rewind: host: %w", err)
	}
	st := m.srv.Stats()
	if !m.started && m.srv.Started() {
		m.started = true
		m.matches++
		m.log.Info("match started", "match", m.matches, "players", st.Players)
	}
	if st.Joins > m.last.Joins {
		m.log.Info("player joined", "match", m.matches, "tick", st.Tick, "players", st.Players, "joins", st.Joins-m.last.Joins)
	}
	if st.Leaves > m.last.Leaves {
		m.log.Info("player left", "match", m.matches, "tick", st.Tick, "players", st.Players, "leaves", st.Leaves-m.last.Leaves)
	}
	if st.Refused > m.last.Refused {
		m.tap.log(m.log, st.Refused-m.last.Refused, "match", m.matches, "tick", st.Tick)
	}
	m.last = st
	if m.started && st.Players == 0 {
		m.log.Info("match ended", "match", m.matches, "ticks", st.Tick, "joins", st.Joins)
		m.done = addServerStats(m.done, st)
		return m.newMatch()
	}
	return nil
}

// stats returns the matches started, whether one runs, the current
// match's counters and the sum of all (its Players the current match's).
func (m *matchHost[I]) stats() (matches uint64, running bool, cur, total server.Stats) {
	cur = m.srv.Stats()
	total = addServerStats(m.done, cur)
	total.Players = cur.Players
	return m.matches, m.srv.Started(), cur, total
}

// addServerStats sums the counters of two matches; Tick sums the ticks run.
func addServerStats(a, b server.Stats) server.Stats {
	a.Tick += b.Tick
	a.Players = b.Players
	a.LateInputs += b.LateInputs
	a.PlayerTicks += b.PlayerTicks
	a.BytesIn += b.BytesIn
	a.BytesOut += b.BytesOut
	a.DatagramsIn += b.DatagramsIn
	a.DatagramsOut += b.DatagramsOut
	a.BadDatagrams += b.BadDatagrams
	a.Joins += b.Joins
	a.Leaves += b.Leaves
	a.Refused += b.Refused
	return a
}

// UDPOptions configures a session that connects over UDP.
type UDPOptions struct {
	Options
	// UDP configures the socket; its HandshakeTimeout bounds how long
	// ConnectUDP waits for a server to answer (default 5 s).
	UDP transport.UDPConfig
}

// ConnectUDP opens a UDP session with the server at addr ("host:port"),
// then starts a session of g as its client (see Connect). The session owns
// the socket: Close says bye and closes it. It fails with an error
// wrapping transport.ErrHandshake when nobody answers in time and
// transport.ErrRefused when the server's socket is full; a match that
// refuses the player fails the session's Update or Run with
// client.ErrRefused.
func ConnectUDP[I any](ctx context.Context, g Game[I], addr string, opts UDPOptions) (*Session[I], error) {
	conn, err := transport.DialUDPContext(ctx, addr, opts.UDP)
	if err != nil {
		return nil, fmt.Errorf("rewind: connect: %w", err)
	}
	s, err := Connect(g, conn, opts.Options)
	if err != nil {
		conn.Close()
		return nil, err
	}
	s.ownConn = true
	return s, nil
}

// refuseTap is the Conn a host gives its server: it passes every datagram
// through and notes the reason of each Refuse the server sends, which the
// server's Stats count but do not break down, so that the host can log
// why hellos were refused (full, incompatible protocol or game, bad
// cookie). The server sends from the goroutine that updates it, which is
// the one that reads the tap.
type refuseTap struct {
	transport.Conn
	reasons [codec.ReasonCookie + 1]uint64 // refusals by reason since the last log
	first   [codec.ReasonCookie + 1]transport.Addr
}

// Send implements transport.Conn.
func (t *refuseTap) Send(to transport.Addr, p []byte) error {
	if typ, _, err := codec.Peek(p); err == nil && typ == codec.TypeRefuse {
		if m, _, err := codec.ParseRefuse(p); err == nil {
			if t.reasons[m.Reason] == 0 {
				t.first[m.Reason] = to
			}
			t.reasons[m.Reason]++
		}
	}
	return t.Conn.Send(to, p)
}

// log logs one "hello refused" line per reason seen since the last call
// (n refusals in all, by the server's count), with the first address
// refused for it, and forgets them.
func (t *refuseTap) log(log *slog.Logger, n uint64, attrs ...any) {
	var seen uint64
	for r := range t.reasons {
		if c := t.reasons[r]; c > 0 {
			log.Warn("hello refused", append(attrs[:len(attrs):len(attrs)], "reason", codec.Reason(r).String(), "refusals", c, "addr", string(t.first[r]))...)
			seen += c
			t.reasons[r], t.first[r] = 0, ""
		}
	}
	if seen < n {
		log.Warn("hello refused", append(attrs[:len(attrs):len(attrs)], "reason", "unknown", "refusals", n-seen)...)
	}
}
