// Package simmatch runs a whole rewind match (a server and its clients) over
// transport's network simulator in made-up time, and checks it: every
// client's world hash at every verified tick against the server's hash of
// that tick. The match tests, the benchmarks and `rewind-bench match` use
// it. Every machine gets its own game value and world, as on a real
// network.
package simmatch

import (
	"fmt"
	"runtime"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Config describes a simulated match.
type Config[I any] struct {
	// Players is the number of clients.
	Players int
	// NewGame returns a fresh game value (one per machine).
	NewGame func() game.Game[I]
	// NewClientGame, if set, gives the clients' game values instead of
	// NewGame (to make a client's game differ from the server's on
	// purpose).
	NewClientGame func() game.Game[I]
	// Bot returns player p's input for tick t.
	Bot func(p game.PlayerID, t uint32) I
	// Duration is the match time to simulate, from the first tick.
	Duration time.Duration
	// Link is every link's behaviour (both ways).
	Link transport.LinkConfig
	// Links, if set, gives client i's path its own behaviour.
	Links map[int]transport.LinkConfig
	// Blackout silences the lowest-id player for this long, starting a
	// third of the way into the match.
	Blackout time.Duration
	// Blackouts, if set, silences client i's path (both ways) for
	// Blackouts[i].Length from Blackouts[i].At into the match.
	Blackouts map[int]Pause
	// Pause, if set, stops calling client i's Update for Pause[i].Length
	// from Pause[i].At into the match (a stalled machine).
	Pause map[int]Pause
	// JoinAt, if set, holds client i back until JoinAt[i] into the match
	// (it says hello then). Server.StartPlayers should then be set, or the
	// match waits for every player.
	JoinAt map[int]time.Duration
	// Leave, if set, closes client i (it says bye) at Leave[i] into the
	// match; with Rejoin[i] set too, a new client rejoins with the first
	// one's cookie that long into the match (RejoinCookie: with a wrong
	// cookie instead; it must be refused).
	Leave  map[int]time.Duration
	Rejoin map[int]time.Duration
	// RejoinWrongCookie makes every rejoin use a wrong cookie.
	RejoinWrongCookie bool
	// Corrupt, if set, flips bytes of client i's world at Corrupt[i] into
	// the match (CorruptFn does it).
	Corrupt   map[int]time.Duration
	CorruptFn func(w *world.World)
	// Drop, if set, is asked about every datagram the server sends to
	// client i: true loses it (as the network would).
	Drop func(i int, b []byte) bool
	// Seed seeds the network.
	Seed int64
	// Step is the driver's time step (default 1 ms).
	Step time.Duration
	// Server and Client are the settings of the machines.
	Server server.Config
	Client client.Config
	// ClientConfig, if set, adjusts client i's settings (a copy of Client)
	// before it is made.
	ClientConfig func(i int, c *client.Config)
	// Names, if set, makes each client i name itself "p<i>" (SetName).
	Names bool
	// Lockstep, if set, makes client i a lockstep client (Client with
	// Lockstep set); the rest predict.
	Lockstep map[int]bool
	// End, if set, ends the match with Server.End at its last tick: the
	// run goes on until the server is Done and every client has left
	// (its goodbye, or its timeout), instead of until every client
	// verified the last tick. Result.Ends and Result.FinalHashes tell how
	// each client's session ended.
	End bool
	// Trace, if set, logs every client's state this often.
	Trace time.Duration
	// Log, if set, gets progress lines.
	Log func(format string, args ...any)
}

// Pause is a stretch of time in which a client's machine does not run.
type Pause struct {
	At, Length time.Duration
}

// Result is what a simulated match did.
type Result struct {
	// Ticks is the server's last tick.
	Ticks uint32
	// Verified is the smallest verified tick of the clients at the end.
	Verified uint32
	// VerifiedTicks counts (client, tick) pairs checked against the server.
	VerifiedTicks uint64
	// Mismatches counts verified (client, tick) pairs whose full world hash
	// differed from the server's.
	Mismatches uint64
	// VerifiedEqual is true when every client verified ticks, and every
	// verified tick of every client hashed equal to the server's. It says
	// nothing of the ticks a client did not verify: FullyVerified and
	// ClientVerifiedTicks do.
	VerifiedEqual bool
	// ClientVerifiedTicks counts, per client, the ticks it verified (a
	// rejoining client's sessions together).
	ClientVerifiedTicks []uint64
	// FullyVerified counts the clients that verified every tick from
	// their first verified one to the match's last. A client that was
	// dropped (a blackout longer than PlayerTimeout) stops short; one
	// moved to a newer world after falling behind (a rebase) skips the
	// ticks between.
	FullyVerified int
	// Lead is, per client, its mean predicted tick minus verified tick
	// over the match's last second (sampled every Step while it plays;
	// 0 if it did not play then): how far ahead of the server's word it
	// runs once settled.
	Lead []float64
	// Desyncs and Resyncs sum the clients' counters.
	Desyncs, Resyncs uint64
	// MaxRollback is the deepest rollback of any client, in ticks.
	MaxRollback uint32
	// Rollbacks sums the clients' rollbacks.
	Rollbacks uint64
	// ShownTicks counts the (lockstep client or spectator, tick) pairs
	// shown: after every Update in which such a client's world moved, its world's
	// full hash was checked against the server's of the tick it shows;
	// ShownMismatches counts those that differed, and ShownUnverified
	// those in which the shown tick was not the verified one.
	ShownTicks, ShownMismatches, ShownUnverified uint64
	// HeardWaiting is, per client, every player the server's stall
	// messages named to it (bit p for player p, over the match).
	HeardWaiting []uint64
	// HeardNames is, per client, the names it had for the players the
	// stall messages named, when it heard them (each once).
	HeardNames [][]string
	// Stalls sums the clients' stalls at the prediction limit (until the
	// server's last tick).
	Stalls uint64
	// ServerCPU is the CPU time (of the driving thread, where the platform
	// tells: ServerCPUIsThread) spent in the server's Update; elsewhere the
	// wall time.
	ServerCPU         time.Duration
	ServerCPUIsThread bool
	// ClientCPU is the same measure of every client's Update, summed;
	// ClientCPUs per client.
	ClientCPU  time.Duration
	ClientCPUs []time.Duration
	// PlayerTicks is the server's ticks times players present.
	PlayerTicks uint64
	// ServerBytesOut is the bytes the server sent; ClientBytesIn and
	// ClientBytesOut sum what the clients received and sent.
	ServerBytesOut, ClientBytesIn, ClientBytesOut uint64
	// Dropped counts clients the server dropped (or that timed out).
	Dropped int
	// Clients and Server are the final counters.
	Clients []client.Stats
	Server  server.Stats
	// Joins says, per client, when it said hello and when it verified its
	// first tick, and the bytes the server sent it in between.
	Joins []JoinStat
	// Refusals are the refusals clients got (a wrong cookie's rejoin).
	Refusals []error
	// Rejoined is, per client, the player id of its rejoin (or -1).
	Rejoined []int
	// Ends is, per client, the error its session ended with when the
	// server ended the match (Config.End; nil for any other end),
	// FinalHashes the full hash of its verified world then and
	// FinalWorlds its world's (the one it shows: a predicting player's is
	// ahead); FinalHash is the server's world's hash at its last tick.
	Ends        []*client.EndedError
	FinalHashes []uint64
	FinalWorlds []uint64
	FinalHash   uint64
}

// JoinStat is one client's join.
type JoinStat struct {
	// Hello is when the client first said hello, from the match's start
	// (negative: before it).
	Hello time.Duration
	// FirstVerified is when it verified its first tick, from its hello;
	// FirstTick is that tick.
	FirstVerified time.Duration
	FirstTick     uint32
	// Bytes is every datagram payload byte the server sent the client
	// from its hello to its first verified tick (lost ones, resends and
	// ticks included).
	Bytes uint64
}

// countConn counts the bytes sent to each address, and drops those Drop
// says.
type countConn struct {
	transport.Conn
	to     map[transport.Addr]uint64
	client map[transport.Addr]int
	drop   func(i int, b []byte) bool
}

func (c *countConn) Send(to transport.Addr, p []byte) error {
	c.to[to] += uint64(len(p))
	if i, ok := c.client[to]; ok && c.drop != nil && c.drop(i, p) {
		return nil
	}
	return c.Conn.Send(to, p)
}

// BytesPerClientPerSecond is the mean of each client's bytes received plus
// sent, per second of match.
func (r Result) BytesPerClientPerSecond(d time.Duration) float64 {
	if len(r.Clients) == 0 || d <= 0 {
		return 0
	}
	return float64(r.ClientBytesIn+r.ClientBytesOut) / float64(len(r.Clients)) / d.Seconds()
}

// ServerMicrosPerPlayerTick is ServerCPU per player-tick, in µs.
func (r Result) ServerMicrosPerPlayerTick() float64 {
	if r.PlayerTicks == 0 {
		return 0
	}
	return float64(r.ServerCPU.Microseconds()) / float64(r.PlayerTicks)
}

// Run plays the match and returns what happened; an error means the match
// could not be set up or a machine failed.
func Run[I any](cfg Config[I]) (Result, error) {
	if cfg.Players < 1 {
		return Result{}, fmt.Errorf("simmatch: %d players", cfg.Players)
	}
	m, err := newMatch(cfg)
	defer m.close()
	if err != nil {
		return m.res, err
	}
	// The whole match runs on this goroutine; lock it to its thread so
	// that the thread's CPU clock measures the server's Update.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := m.run(); err != nil {
		return m.res, err
	}
	m.finish()
	return m.res, nil
}

// match is one simulated match under way: the network, the server, a
// driver per client, and the Result being filled in.
type match[I any] struct {
	cfg        Config[I]
	logf       func(format string, args ...any)
	net        *transport.SimNetwork
	counted    *countConn
	srv        *server.Server[I]
	hashes     []uint64 // the server's hash of tick t at t-1
	maxTicks   uint32
	conns      []*transport.SimConn
	drivers    []*driver[I]
	res        Result
	start      time.Time
	now        time.Time
	matchStart time.Time     // when the server started the match (zero before)
	into       time.Duration // now - matchStart (0 before the start)
	blackedOut bool          // the blackout is set on the network
	atEnd      []client.Stats
}

// newMatch sets up the network, the server and the clients.
func newMatch[I any](cfg Config[I]) (*match[I], error) {
	if cfg.Step <= 0 {
		cfg.Step = time.Millisecond
	}
	m := &match[I]{cfg: cfg, logf: cfg.Log, start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if m.logf == nil {
		m.logf = func(string, ...any) {}
	}
	m.now = m.start
	m.net = transport.NewSimNetwork(cfg.Seed, m.start)
	m.net.SetDefaultLink(cfg.Link)
	for i, l := range cfg.Links {
		m.net.SetPath(clientName(i), "server", l)
	}
	sconn, err := m.net.Listen("server")
	if err != nil {
		return m, err
	}
	m.conns = append(m.conns, sconn)
	scfg := cfg.Server
	if scfg.StartPlayers == 0 {
		scfg.StartPlayers = cfg.Players
	}
	m.maxTicks = uint32(cfg.Duration * time.Duration(rateOf(cfg.NewGame())) / time.Second)
	scfg.MaxTicks = m.maxTicks
	scfg.MaxPlayers = max(scfg.MaxPlayers, cfg.Players)
	userOnTick := scfg.OnTick
	scfg.OnTick = func(t uint32, w *world.World, h uint64) {
		m.hashes = append(m.hashes, h)
		if userOnTick != nil {
			userOnTick(t, w, h)
		}
	}
	m.counted = &countConn{Conn: sconn, to: map[transport.Addr]uint64{}, client: map[transport.Addr]int{}, drop: cfg.Drop}
	if m.srv, err = server.New(cfg.NewGame(), m.counted, scfg); err != nil {
		return m, err
	}
	n := cfg.Players
	m.res.Joins = make([]JoinStat, n)
	m.res.Rejoined = make([]int, n)
	m.res.ClientVerifiedTicks = make([]uint64, n)
	m.res.Lead = make([]float64, n)
	m.res.HeardWaiting = make([]uint64, n)
	m.res.HeardNames = make([][]string, n)
	m.res.ClientCPUs = make([]time.Duration, n)
	m.res.Ends = make([]*client.EndedError, n)
	m.res.FinalHashes = make([]uint64, n)
	m.res.FinalWorlds = make([]uint64, n)
	for i := range n {
		m.res.Rejoined[i] = -1
		d := &driver[I]{m: m, i: i}
		if d.c, err = d.newClient(clientName(i), nil); err != nil {
			return m, err
		}
		m.drivers = append(m.drivers, d)
	}
	return m, nil
}

// close closes every connection of the simulated network.
func (m *match[I]) close() {
	for _, c := range m.conns {
		c.Close()
	}
}

// run steps the handshake, the match, then until every client verified
// the last tick (or a drain limit passes).
func (m *match[I]) run() error {
	cfg := &m.cfg
	deadline := m.start.Add(10*time.Second + cfg.Duration)
	for m.now.Before(deadline) {
		m.now = m.now.Add(cfg.Step)
		m.net.Advance(m.now)
		if err := m.updateServer(); err != nil {
			return err
		}
		if m.srv.Started() && m.matchStart.IsZero() {
			m.matchStart = m.now
			deadline = m.now.Add(cfg.Duration + drain)
			m.logf("match started at %v", m.now.Sub(m.start))
		}
		if !m.matchStart.IsZero() {
			m.into = m.now.Sub(m.matchStart)
		}
		m.blackout()
		m.trace()
		if cfg.End && m.srv.Ended() && !m.srv.Ending() {
			m.srv.End(m.now)
			m.logf("match ended at %v (tick %d)", m.into, m.srv.Tick())
		}
		done := m.srv.Ended()
		for _, d := range m.drivers {
			waiting, err := d.step()
			if err != nil {
				return err
			}
			done = done && !waiting
			if cfg.End {
				done = done && d.gone
			}
		}
		if cfg.End {
			done = done && m.srv.Done()
		}
		if m.srv.Ended() && m.atEnd == nil {
			for _, d := range m.drivers {
				m.atEnd = append(m.atEnd, d.c.Stats())
			}
		}
		if done {
			break
		}
	}
	if m.atEnd == nil {
		return fmt.Errorf("simmatch: the match did not end (server at tick %d of %d)", m.srv.Tick(), m.maxTicks)
	}
	return nil
}

// updateServer updates the server and counts its CPU time.
func (m *match[I]) updateServer() error {
	t0, w0 := cputime.Thread()
	if err := m.srv.Update(m.now); err != nil {
		return err
	}
	t1, _ := cputime.Thread()
	m.res.ServerCPU += t1 - t0
	m.res.ServerCPUIsThread = w0
	return nil
}

// blackout silences the lowest-id player's path once the match started
// (Config.Blackout), and the paths of Config.Blackouts.
func (m *match[I]) blackout() {
	if m.blackedOut || m.matchStart.IsZero() {
		return
	}
	m.blackedOut = true
	for i, b := range m.cfg.Blackouts {
		from := m.matchStart.Add(b.At)
		m.net.Blackout(clientName(i), from, from.Add(b.Length))
		m.logf("blackout of client %d from %v for %v", i, b.At, b.Length)
	}
	if m.cfg.Blackout <= 0 {
		return
	}
	low := 0
	for i, d := range m.drivers {
		id, _ := d.c.Player()
		lid, _ := m.drivers[low].c.Player()
		if id < lid {
			low = i
		}
	}
	from := m.matchStart.Add(m.cfg.Duration / 3)
	m.net.Blackout(clientName(low), from, from.Add(m.cfg.Blackout))
	m.logf("blackout of client %d from %v for %v", low, m.cfg.Duration/3, m.cfg.Blackout)
}

// trace logs every client's state every Config.Trace.
func (m *match[I]) trace() {
	if m.cfg.Trace <= 0 || m.matchStart.IsZero() || m.into%m.cfg.Trace != 0 {
		return
	}
	for i, d := range m.drivers {
		st := d.c.Stats()
		m.logf("t=%v client %d: server=%d predicted=%d verified=%d late=%d rollbacks=%d maxrb=%d stalls=%d corrections=%d ping=%v",
			m.into, i, m.srv.Tick(), st.Predicted, st.Verified, st.LateInputs, st.Rollbacks, st.MaxRollback, st.Stalls, st.LeadCorrections, st.Ping)
	}
}

// finish fills in the Result's totals from the machines' counters.
func (m *match[I]) finish() {
	res := &m.res
	res.Server = m.srv.Stats()
	res.Ticks = m.srv.Tick()
	res.FinalHash = m.srv.World().Hash()
	res.PlayerTicks = res.Server.PlayerTicks
	res.ServerBytesOut = res.Server.BytesOut
	res.Verified = ^uint32(0)
	for i, d := range m.drivers {
		st := d.c.Stats()
		res.Clients = append(res.Clients, st)
		res.Desyncs += st.Desyncs
		res.Resyncs += st.Resyncs
		res.Rollbacks += st.Rollbacks
		res.Stalls += m.atEnd[i].Stalls
		res.MaxRollback = max(res.MaxRollback, st.MaxRollback)
		res.ClientBytesIn += st.BytesIn
		res.ClientBytesOut += st.BytesOut
		res.Verified = min(res.Verified, d.verified)
		if d.leadN > 0 {
			res.Lead[i] /= float64(d.leadN)
		}
		if first := res.Joins[i].FirstTick; first > 0 && d.verified == res.Ticks && res.ClientVerifiedTicks[i] >= uint64(res.Ticks-first+1) {
			res.FullyVerified++
		}
	}
	res.VerifiedEqual = res.Mismatches == 0 && res.Verified > 0
}
