package rewind

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

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

// matchHost is the core of Host: it runs one match at a
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

// Prove implements transport.Prover when the Conn does: the server proves
// the players it admits.
func (t *refuseTap) Prove(a transport.Addr) {
	if p, ok := t.Conn.(transport.Prover); ok {
		p.Prove(a)
	}
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
