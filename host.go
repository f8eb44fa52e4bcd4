package rewind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/matchhost"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// HostOptions configures a Host. The zero value hosts with every default.
type HostOptions struct {
	// Server configures each match. Its StartPlayers says how many players
	// must have said hello before the first tick (default 1); its
	// PlayerTimeout also becomes the UDP idle timeout unless UDP sets one.
	Server ServerConfig
	// UDP configures the socket HostUDP opens, and its sessions. NewHost
	// ignores it: its caller configured the Conn.
	UDP UDPConfig
	// Log, if set, gets the host's events: listening, a match starting
	// and ending, players joining and leaving, hellos refused and why.
	Log *slog.Logger
}

// Host hosts matches of one game over a server-side transport.Conn: a UDP
// socket (HostUDP), a WebRTC room (package rooms), several of them at once
// through a transport.MultiConn, or anything else with many peers. It runs
// one match at a time, the authoritative server of package server: a
// match starts when Server.StartPlayers players have said hello, and ends
// when its last player has left (said bye or timed out): its spectators
// are then sent every tick up to the last before their goodbye
// (server.Server.End, bounded by Server.Linger), and the next hello after
// that starts a new one. Run drives it in real time, waking when a datagram
// arrives and when the next tick is due; Update drives it in made-up time.
// Stats may be called from any goroutine meanwhile. The Host owns its
// Conn: Close says goodbye to every player, then closes it.
type Host[I any] struct {
	mu     sync.Mutex
	conn   transport.Conn
	batch  *matchhost.BatchConn // over conn when it is a transport.Batcher, else nil
	m      matchhost.Host[I]
	closed bool
	bye    Reason // Close's goodbye (SetGoodbye; zero: shutdown)
}

// HostStats is what a Host has done.
type HostStats struct {
	// Matches counts matches started; Running says whether one is running.
	Matches uint64
	Running bool
	// Match is the current match's counters (Tick is its last tick,
	// Players its players).
	Match ServerStats
	// Total sums every match's counters, the current one included; its
	// Tick is the number of ticks run in all matches and its Players the
	// current match's players.
	Total ServerStats
	// UDP is the UDP socket's counters (zero without one): every datagram,
	// valid or not, with what the transport refused and dropped. It comes
	// from the Conn, or a MultiConn's member, with a Stats method
	// returning UDPStats.
	UDP UDPStats
	// RefusedBy counts the hellos refused in all matches by reason,
	// indexed by Reason (ReasonFull, ReasonProtocol, ReasonGame,
	// ReasonCookie).
	RefusedBy [ReasonCookie + 1]uint64
	// Peers is the number of players whose WebRTC data channel is open:
	// the sum over the Conn, or a MultiConn's members, with a Peers
	// method (webrtc.Host has one).
	Peers int
}

// NewHost hosts matches of g over conn, a server-side Conn (RemoteAddr
// ""), which the Host owns from now on, also when NewHost fails. g is
// registered once (unless opts.Server has a Schema); every match sets up a
// fresh world from it.
func NewHost[I any](g Game[I], conn Conn, opts HostOptions) (*Host[I], error) {
	cfg, log, err := matchhost.Setup(g, opts.Server, opts.Log)
	if err != nil {
		conn.Close()
		return nil, err
	}
	h := &Host[I]{conn: conn}
	mconn := conn
	if h.batch = matchhost.NewBatchConn(conn); h.batch != nil {
		// A tick's datagrams to every player leave in one batch,
		// flushed at the end of each Update.
		mconn = h.batch
	}
	if err := h.m.Init(g, cfg, mconn, log); err != nil {
		conn.Close()
		return nil, err
	}
	return h, nil
}

// Conn returns the Conn the matches run over (the Host owns it).
func (h *Host[I]) Conn() Conn { return h.conn }

// UDPAddr returns the UDP socket's address (the Conn's, or a MultiConn
// member's, with a UDPAddr method), and false without one.
func (h *Host[I]) UDPAddr() (netip.AddrPort, bool) {
	for _, c := range matchhost.Members(h.conn) {
		if u, ok := c.(interface{ UDPAddr() netip.AddrPort }); ok {
			return u.UDPAddr(), true
		}
	}
	return netip.AddrPort{}, false
}

// Update runs the current match at now (see server.Server.Update), logs
// what changed, and starts a new match when the current one has emptied.
func (h *Host[I]) Update(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("rewind: host %s: %w", h.conn.LocalAddr(), transport.ErrClosed)
	}
	err := h.m.Update(now)
	if ferr := h.flush(); err == nil {
		err = ferr
	}
	return err
}

// flush sends the datagrams batched since the last flush.
func (h *Host[I]) flush() error {
	if h.batch == nil {
		return nil
	}
	if err := h.batch.Flush(); err != nil {
		return fmt.Errorf("rewind: host: %w", err)
	}
	return nil
}

// NextDeadline returns when the current match's next tick is due, or the
// zero time before it has started (then only a hello can start it): Drive
// and Run wake the host then.
func (h *Host[I]) NextDeadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return time.Time{}
	}
	return h.m.Server.NextDeadline()
}

// Run drives the host in real time until ctx is done (then it returns
// nil) or the transport fails. It does not close the host. It wakes when a
// datagram arrives (so that the server notes how early each input came)
// and when the next tick is due (NextDeadline), else once a tick: not on a
// fixed short period, because every wake-up costs more CPU than the
// server's work for it (docs/benchmarks.md, Transport).
func (h *Host[I]) Run(ctx context.Context) error {
	err := Drive(ctx, h, h.m.Period, nil, h.conn.Ready())
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// Stats returns the host's counters. It is safe to call while Run runs.
func (h *Host[I]) Stats() HostStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	var s HostStats
	s.Matches, s.Running, s.Match, s.Total = h.m.Stats()
	s.RefusedBy = h.m.Tap.Total
	for _, c := range matchhost.Members(h.conn) {
		switch c := c.(type) {
		case interface{ Stats() udp.Stats }:
			s.UDP = c.Stats()
		case interface{ Peers() int }:
			s.Peers += c.Peers()
		}
	}
	return s
}

// Close says goodbye to every player of the current match (a bye, sent
// three times, best effort) and closes the Conn: the players' clients see
// the session end (client.ErrKicked) at once rather than after their
// timeout. Closing a closed Host does nothing.
func (h *Host[I]) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	h.m.Log.Info("closing", "matches", h.m.Matches)
	switch {
	case h.m.Server.Done(): // End said goodbye to everyone already
	case h.bye != 0:
		_ = h.m.Server.Goodbye(h.bye)
	default:
		_ = h.m.Server.Shutdown() // a bye to every player
	}
	_ = h.flush()
	return h.conn.Close()
}

// End ends the current match on purpose (server.Server.End): no tick
// runs after it; every player and spectator is sent the ticks it lacks,
// resent as during play, then a goodbye that says the match ended and
// names its last tick (codec.ReasonEnded), once it has acknowledged that tick or
// once Server.Linger (plus a spectator's delay) has passed. End drives the
// host in real time until every peer is done with, or ctx is done (then
// it returns nil: Close says goodbye to whoever is left). Call it after
// Run has returned, before Close. A match that has not started ends at
// once; Close's goodbye then says codec.ReasonEnded.
func (h *Host[I]) End(ctx context.Context) error {
	h.mu.Lock()
	h.bye = codec.ReasonEnded
	started := !h.closed && h.m.Server.Started()
	if started {
		h.m.Server.End(time.Now())
	}
	h.mu.Unlock()
	if !started {
		return nil
	}
	period := func() time.Duration { return h.m.Period }
	err := drive(ctx, h.updateEnd, nil, period, nil, []<-chan struct{}{h.conn.Ready()})
	if errors.Is(err, errEndDone) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// errEndDone stops End's Drive once every peer is done with.
var errEndDone = errors.New("rewind: host: the match's end is done")

// updateEnd is End's update: the ending match alone (no new match
// starts while it ends), until it is done.
func (h *Host[I]) updateEnd(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("rewind: host %s: %w", h.conn.LocalAddr(), transport.ErrClosed)
	}
	err := h.m.Server.Update(now)
	if ferr := h.flush(); err == nil {
		err = ferr
	}
	if err == nil && h.m.Server.Done() {
		if err := h.m.Server.Failure(); err != nil { // a module trapped or ran past its budget
			h.m.Log.Error("match failed", "match", h.m.Matches, "ticks", h.m.Server.Stats().Tick, "err", err)
		}
		h.m.Log.Info("match ended", "match", h.m.Matches, "ticks", h.m.Server.Stats().Tick)
		return errEndDone
	}
	return err
}

// SetGoodbye sets why Close says goodbye to the players:
// codec.ReasonShutdown (the default: the server left, the match is over),
// ReasonEnded (the match ended on purpose: package rooms' Room.End) or
// ReasonMigrate (the
// server leaves, the match goes on at another host).
func (h *Host[I]) SetGoodbye(r Reason) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.bye = r
}
