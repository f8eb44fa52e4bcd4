// Package matchhost runs one match at a time of a game over a
// server-side Conn, starting a new one when the current one has emptied:
// the core of rewind.Host and of each room of a host.Multi. It logs what
// happens (refusals counted by reason through a RefuseTap) and sums every
// match's counters. Its owner locks around it.
package matchhost

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Members returns conn's members if it is a MultiConn, else conn alone.
func Members(conn transport.Conn) []transport.Conn {
	m, ok := conn.(*transport.MultiConn)
	if !ok {
		return []transport.Conn{conn}
	}
	out := make([]transport.Conn, m.Members())
	for i := range out {
		out[i] = m.Member(i)
	}
	return out
}

// TickPeriod returns the tick period of a game (game.RateOf).
func TickPeriod(g any) time.Duration {
	return time.Second / time.Duration(game.RateOf(g))
}

// Setup registers g's schema into cfg unless it has one, and returns
// log, or a logger that discards, when log is nil.
func Setup[I any](g game.Game[I], cfg server.Config, log *slog.Logger) (server.Config, *slog.Logger, error) {
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

// Host is the core of rewind.Host and of a host.Multi's room: it runs
// one match at a time of a game over a server-side Conn, starting a new
// one when the current one has emptied, logs what happens, and sums every
// match's counters. Its owner locks around it. Its exported fields are
// for the owner to read (Server to drive the current match too); Init and
// Update set them.
type Host[I any] struct {
	// Server is the current match's server.
	Server *server.Server[I]
	// Tap is the Conn as Server sees it: it notes refusal reasons.
	Tap *RefuseTap
	// Log gets the host's events.
	Log *slog.Logger
	// Period is the game's tick period.
	Period time.Duration
	// Matches counts the matches started.
	Matches uint64
	// Started says whether the current match had started at the last
	// Update.
	Started bool
	// Closed says new players are refused (SetClosed): every match is
	// closed to them from its start.
	Closed bool
	// At is the time of the last Update.
	At time.Time

	g     game.Game[I]
	cfg   server.Config
	conn  transport.Conn
	done  server.Stats // the sum of ended matches
	last  server.Stats // the current match's stats at the last update
	ready uint64       // the players ready at the last update
	gone  uint64       // the departures of ended matches
}

// Init sets m up and creates its first match.
func (m *Host[I]) Init(g game.Game[I], cfg server.Config, conn transport.Conn, log *slog.Logger) error {
	*m = Host[I]{g: g, cfg: cfg, conn: conn, Log: log, Period: TickPeriod(g)}
	return m.newMatch()
}

func (m *Host[I]) newMatch() error {
	if m.Tap == nil { // one tap for every match: its counts and log times go on
		m.Tap = &RefuseTap{Conn: m.conn}
	}
	srv, err := server.New(m.g, m.Tap, m.cfg)
	if err != nil {
		return fmt.Errorf("rewind: host: %w", err)
	}
	if m.Server != nil {
		m.gone += m.Server.Departures()
	}
	m.Server, m.last, m.Started, m.ready = srv, server.Stats{}, false, 0
	srv.SetClosed(m.Closed)
	return nil
}

// SetRoomKey makes key the room's key in the handover data of the
// current match and those after it (server.Server.SetRoomKey).
func (m *Host[I]) SetRoomKey(key string) {
	m.cfg.Room.Key = key
	m.Server.SetRoomKey(key)
}

// Departures counts the players who left every match after their
// welcome (server.Server.Departures).
func (m *Host[I]) Departures() uint64 { return m.gone + m.Server.Departures() }

// SetClosed closes the match, and the matches after it, to new players
// (server.Server.SetClosed), or opens them again.
func (m *Host[I]) SetClosed(closed bool) {
	m.Closed = closed
	m.Server.SetClosed(closed)
}

// EndMatch ends the current match for the operator at now: a match that
// runs ends as server.Server.EndWith does (every peer gets the ticks it
// lacks, then a goodbye with codec.ReasonOperator), and the next match
// starts once that end is done (Update); one that has not started says
// goodbye at once and a new one waits for players.
func (m *Host[I]) EndMatch(now time.Time) error {
	if !m.Server.Started() {
		_ = m.Server.Goodbye(codec.ReasonOperator)
		m.Log.Info("match ended by the operator before it started", "match", m.Matches+1)
		m.done = AddStats(m.done, m.Server.Stats())
		return m.newMatch()
	}
	if !m.Server.Ending() {
		m.Log.Info("match ended by the operator", "match", m.Matches, "tick", m.Server.Tick())
	}
	m.Server.EndWith(now, codec.ReasonOperator)
	return nil
}

// Update runs the current match at now, logs what changed, and starts a
// new match when the current one has emptied.
func (m *Host[I]) Update(now time.Time) error {
	m.At = now
	if err := m.Server.Update(now); err != nil {
		return fmt.Errorf("rewind: host: %w", err)
	}
	st := m.Server.Stats()
	if !m.Started && m.Server.Started() {
		m.Started = true
		m.Matches++
		m.Log.Info("match started", "match", m.Matches, "players", st.Players)
	}
	if st.Joins > m.last.Joins {
		m.Log.Info("player joined", "match", m.Matches, "tick", st.Tick, "players", st.Players, "joins", st.Joins-m.last.Joins)
	}
	if st.Leaves > m.last.Leaves {
		m.Log.Info("player left", "match", m.Matches, "tick", st.Tick, "players", st.Players, "leaves", st.Leaves-m.last.Leaves)
	}
	if st.Refused > m.last.Refused || m.Tap.waiting {
		m.Tap.log(m.Log, now, st.Refused-m.last.Refused, "match", m.Matches, "tick", st.Tick)
	}
	m.last = st
	if r := m.Server.Ready(); r != m.ready {
		m.ready = r
		m.Log.Info("ready", "match", m.Matches, "players", server.WaitingIDs(r))
	}
	if m.Started && (st.Players == 0 || m.Server.Ending()) {
		// The match is over (its last player left, or the operator
		// ended it): its peers get every tick up to the last, then the
		// goodbye (server.Config.Linger bounds the wait); the next match
		// starts then.
		if !m.Server.Ending() {
			m.Server.End(now)
			if err := m.Server.Update(now); err != nil {
				return fmt.Errorf("rewind: host: %w", err)
			}
		}
		if !m.Server.Done() {
			return nil
		}
		if err := m.Server.Failure(); err != nil { // a module trapped or ran past its budget
			m.Log.Error("match failed", "match", m.Matches, "ticks", st.Tick, "err", err)
		}
		m.Log.Info("match ended", "match", m.Matches, "ticks", st.Tick, "joins", st.Joins)
		m.done = AddStats(m.done, st)
		return m.newMatch()
	}
	return nil
}

// Stats returns the matches started, whether one runs, the current
// match's counters and the sum of all (its Players the current match's).
func (m *Host[I]) Stats() (matches uint64, running bool, cur, total server.Stats) {
	cur = m.Server.Stats()
	total = AddStats(m.done, cur)
	total.Players = cur.Players
	return m.Matches, m.Server.Started(), cur, total
}

// AddStats sums the counters of two matches; Tick sums the ticks run,
// Players is b's (the later match's) and LongestStall the longer one.
func AddStats(a, b server.Stats) server.Stats {
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
	a.InputChanges += b.InputChanges
	a.Refused += b.Refused
	a.Rejoins += b.Rejoins
	a.Rebases += b.Rebases
	a.Transfers += b.Transfers
	a.TransferBytes += b.TransferBytes
	a.ChunksOut += b.ChunksOut
	a.WholeWorlds += b.WholeWorlds
	a.PagesSent += b.PagesSent
	a.PageHashRequests += b.PageHashRequests
	a.FetchesLimited += b.FetchesLimited
	a.HandoversOut += b.HandoversOut
	a.Stalls += b.Stalls
	a.StallTime += b.StallTime
	a.LongestStall = max(a.LongestStall, b.LongestStall)
	a.ChatLines += b.ChatLines
	a.ChatRefused += b.ChatRefused
	a.ChatDropped += b.ChatDropped
	a.GameMessages += b.GameMessages
	a.ModuleRequests += b.ModuleRequests
	a.ModuleRefused += b.ModuleRefused
	a.ModuleChunksOut += b.ModuleChunksOut
	a.ModuleLimited += b.ModuleLimited
	a.ReplayMismatches += b.ReplayMismatches
	a.Spectators += b.Spectators
	a.SpectatorDropped += b.SpectatorDropped
	return a
}

// refuseLogEvery is how often the host logs a line per refusal reason at
// most: a flood of bad hellos costs one line per reason per second, with
// the count, never a line per hello.
const refuseLogEvery = time.Second

// RefuseTap is the Conn a host gives its server: it passes every datagram
// through and notes the reason of each Refuse the server sends, which the
// server's Stats count but do not break down, so that the host can log
// why hellos were refused (full, incompatible protocol or game, bad
// cookie) and count them by reason (rewind.HostStats.RefusedBy). The server sends
// from the goroutine that updates it, which is the one that reads the tap.
type RefuseTap struct {
	transport.Conn
	// Total counts the refusals by reason, ever.
	Total [codec.ReasonCookie + 1]uint64

	reasons [codec.ReasonCookie + 1]uint64 // refusals by reason not logged yet
	first   [codec.ReasonCookie + 1]transport.Addr
	logged  [codec.ReasonCookie + 2]time.Time // last line per reason; the last: unknown
	fresh   uint64                            // refusals seen since the last log call
	unknown uint64                            // refusals the tap did not see, not logged yet
	waiting bool                              // some refusals are not logged yet
}

// Send implements transport.Conn.
func (t *RefuseTap) Send(to transport.Addr, p []byte) error {
	if typ, _, err := codec.Peek(p); err == nil && typ == codec.TypeRefuse {
		if m, _, err := codec.ParseRefuse(p); err == nil {
			if t.reasons[m.Reason] == 0 {
				t.first[m.Reason] = to
			}
			t.reasons[m.Reason]++
			t.Total[m.Reason]++
			t.fresh++
			t.waiting = true
		}
	}
	return t.Conn.Send(to, p)
}

// RecvStamped implements transport.Stamped: the Conn's arrival times when
// it has them (a host.Multi's room queue), else the zero Time.
func (t *RefuseTap) RecvStamped(p []byte) (int, transport.Addr, time.Time, error) {
	if c, ok := t.Conn.(transport.Stamped); ok {
		return c.RecvStamped(p)
	}
	n, from, err := t.Conn.Recv(p)
	return n, from, time.Time{}, err
}

// Prove implements transport.Prover when the Conn does: the server proves
// the players it admits.
func (t *RefuseTap) Prove(a transport.Addr) {
	if p, ok := t.Conn.(transport.Prover); ok {
		p.Prove(a)
	}
}

// log logs one "hello refused" line per reason with refusals not logged
// yet, with their count and the first address refused, unless that
// reason's last line is under refuseLogEvery old (then they wait for a
// later call). n is the server's count of refusals since the last call:
// those the tap did not see are logged as reason "unknown".
func (t *RefuseTap) log(log *slog.Logger, now time.Time, n uint64, attrs ...any) {
	if n > t.fresh {
		t.unknown += n - t.fresh
	}
	t.fresh, t.waiting = 0, false
	for r := range t.reasons {
		c := t.reasons[r]
		if c == 0 {
			continue
		}
		if now.Sub(t.logged[r]) < refuseLogEvery {
			t.waiting = true
			continue
		}
		log.Warn("hello refused", append(attrs[:len(attrs):len(attrs)], "reason", codec.Reason(r).String(), "refusals", c, "addr", string(t.first[r]))...)
		t.reasons[r], t.first[r], t.logged[r] = 0, "", now
	}
	if u := len(t.logged) - 1; t.unknown > 0 {
		if now.Sub(t.logged[u]) < refuseLogEvery {
			t.waiting = true
			return
		}
		log.Warn("hello refused", append(attrs[:len(attrs):len(attrs)], "reason", "unknown", "refusals", t.unknown)...)
		t.unknown, t.logged[u] = 0, now
	}
}

// BatchConn is a Conn whose Send goes into a batch (one sendmmsg on
// Linux for a UDP socket), which its owner sends with Flush: a Host's
// tick's datagrams to every player leave together.
type BatchConn struct {
	transport.Conn
	batch transport.Batch
}

// NewBatchConn returns a BatchConn over conn when conn is a
// transport.Batcher (a UDP socket, or a MultiConn of one beside other
// Conns), and nil otherwise.
func NewBatchConn(conn transport.Conn) *BatchConn {
	b, ok := conn.(transport.Batcher)
	if !ok {
		return nil
	}
	return &BatchConn{Conn: conn, batch: b.NewBatch()}
}

// Send implements transport.Conn: p goes into the batch.
func (c *BatchConn) Send(to transport.Addr, p []byte) error { return c.batch.Send(to, p) }

// Prove implements transport.Prover when the Conn does.
func (c *BatchConn) Prove(a transport.Addr) {
	if p, ok := c.Conn.(transport.Prover); ok {
		p.Prove(a)
	}
}

// Flush sends the datagrams batched since the last Flush.
func (c *BatchConn) Flush() error { return c.batch.Flush() }
