// Package simmatch runs a whole rewind match (a server and its clients) over
// transport's network simulator in made-up time, and checks it: every
// client's world hash at every verified tick against the server's hash of
// that tick. The match tests, the benchmarks and `rewind bench match` use
// it. Every machine gets its own game value and world, as on a real
// network.
package simmatch

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/cputime"
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
	// Stalls sums the clients' stalls at the prediction limit (until the
	// server's last tick).
	Stalls uint64
	// ServerCPU is the CPU time (of the driving thread, where the platform
	// tells: ServerCPUIsThread) spent in the server's Update; elsewhere the
	// wall time.
	ServerCPU         time.Duration
	ServerCPUIsThread bool
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
	var res Result
	if cfg.Players < 1 {
		return res, fmt.Errorf("simmatch: %d players", cfg.Players)
	}
	if cfg.Step <= 0 {
		cfg.Step = time.Millisecond
	}
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(cfg.Seed, start)
	net.SetDefaultLink(cfg.Link)
	for i, l := range cfg.Links {
		net.SetPath(clientName(i), "server", l)
	}
	sconn, err := net.Listen("server")
	if err != nil {
		return res, err
	}
	defer sconn.Close()

	var hashes []uint64 // the server's hash of tick t at t-1
	scfg := cfg.Server
	if scfg.StartPlayers == 0 {
		scfg.StartPlayers = cfg.Players
	}
	maxTicks := uint32(cfg.Duration * time.Duration(rateOf(cfg.NewGame())) / time.Second)
	scfg.MaxTicks = maxTicks
	scfg.MaxPlayers = max(scfg.MaxPlayers, cfg.Players)
	userOnTick := scfg.OnTick
	scfg.OnTick = func(t uint32, w *world.World, h uint64) {
		hashes = append(hashes, h)
		if userOnTick != nil {
			userOnTick(t, w, h)
		}
	}
	counted := &countConn{Conn: sconn, to: map[transport.Addr]uint64{}, client: map[transport.Addr]int{}, drop: cfg.Drop}
	srv, err := server.New(cfg.NewGame(), counted, scfg)
	if err != nil {
		return res, err
	}

	clients := make([]*client.Client[I], cfg.Players)
	verified := make([]uint32, cfg.Players)
	gone := make([]bool, cfg.Players)
	res.Joins = make([]JoinStat, cfg.Players)
	res.Rejoined = make([]int, cfg.Players)
	helloAt := make([]time.Time, cfg.Players)
	firstAt := make([]time.Time, cfg.Players)
	res.ClientVerifiedTicks = make([]uint64, cfg.Players)
	res.Lead = make([]float64, cfg.Players)
	leadN := make([]int, cfg.Players)
	var now time.Time
	var matchStart time.Time
	var conns []*transport.SimConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	newClient := func(i int, name string, cookie []byte) (*client.Client[I], error) {
		conn, err := net.Dial(name, "server")
		if err != nil {
			return nil, err
		}
		conns = append(conns, conn)
		counted.client[conn.LocalAddr()] = i
		ccfg := cfg.Client
		ccfg.Cookie = cookie
		userVerified := ccfg.OnVerified
		ccfg.OnVerified = func(t uint32, h uint64) {
			res.VerifiedTicks++
			res.ClientVerifiedTicks[i]++
			verified[i] = t
			if int(t) > len(hashes) || hashes[t-1] != h {
				res.Mismatches++
			}
			if firstAt[i].IsZero() {
				firstAt[i] = now
				res.Joins[i].FirstTick = t
				res.Joins[i].FirstVerified = now.Sub(helloAt[i])
				res.Joins[i].Bytes = counted.to[conn.LocalAddr()]
			}
			if userVerified != nil {
				userVerified(t, h)
			}
		}
		newGame := cfg.NewGame
		if cfg.NewClientGame != nil {
			newGame = cfg.NewClientGame
		}
		c, err := client.New(newGame(), conn, ccfg)
		if err != nil {
			return nil, err
		}
		if cfg.Bot != nil {
			c.SetInputFunc(func(t uint32) I {
				id, _ := c.Player()
				return cfg.Bot(id, t)
			})
		}
		return c, nil
	}
	for i := range clients {
		res.Rejoined[i] = -1
		c, err := newClient(i, clientName(i), nil)
		if err != nil {
			return res, err
		}
		clients[i] = c
	}
	left := make([]bool, cfg.Players)

	// The whole match runs on this goroutine; lock it to its thread so
	// that the thread's CPU clock measures the server's Update.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	now = start
	corrupted := make([]bool, cfg.Players)
	blackoutSet := false
	var atEnd []client.Stats // the clients' counters when the server ended
	// Handshake, the match, then until every client verified the last tick
	// (or a drain limit passes).
	deadline := start.Add(10*time.Second + cfg.Duration)
	for now.Before(deadline) {
		now = now.Add(cfg.Step)
		net.Advance(now)
		t0, w0 := cputime.Thread()
		if err := srv.Update(now); err != nil {
			return res, err
		}
		t1, _ := cputime.Thread()
		res.ServerCPU += t1 - t0
		res.ServerCPUIsThread = w0
		if srv.Started() && matchStart.IsZero() {
			matchStart = now
			deadline = now.Add(cfg.Duration + drain)
			logf("match started at %v", now.Sub(start))
		}
		var into time.Duration
		if !matchStart.IsZero() {
			into = now.Sub(matchStart)
		}
		if cfg.Blackout > 0 && !blackoutSet && !matchStart.IsZero() {
			blackoutSet = true
			low := 0
			for i, c := range clients {
				id, _ := c.Player()
				lid, _ := clients[low].Player()
				if id < lid {
					low = i
				}
			}
			from := matchStart.Add(cfg.Duration / 3)
			net.Blackout(clientName(low), from, from.Add(cfg.Blackout))
			logf("blackout of client %d from %v for %v", low, cfg.Duration/3, cfg.Blackout)
		}
		if cfg.Trace > 0 && !matchStart.IsZero() && into%cfg.Trace == 0 {
			for i, c := range clients {
				st := c.Stats()
				logf("t=%v client %d: server=%d predicted=%d verified=%d late=%d rollbacks=%d maxrb=%d stalls=%d corrections=%d ping=%v",
					into, i, srv.Tick(), st.Predicted, st.Verified, st.LateInputs, st.Rollbacks, st.MaxRollback, st.Stalls, st.LeadCorrections, st.Ping)
			}
		}
		done := srv.Ended()
		for i, c := range clients {
			if p, ok := cfg.Pause[i]; ok && !matchStart.IsZero() && into >= p.At && into < p.At+p.Length {
				continue
			}
			if gone[i] {
				continue
			}
			if at, ok := cfg.JoinAt[i]; ok && (matchStart.IsZero() || into < at) {
				done = false
				continue
			}
			if at, ok := cfg.Leave[i]; ok && !left[i] && !matchStart.IsZero() && into >= at {
				left[i] = true
				_ = c.Close()
				logf("client %d left at %v", i, into)
			}
			if left[i] {
				at, ok := cfg.Rejoin[i]
				if !ok || into < at {
					if ok {
						done = false
					}
					continue
				}
				cookie, _ := c.Cookie()
				if cfg.RejoinWrongCookie {
					cookie[0] ^= 1
				}
				nc, err := newClient(i, clientName(i)+"r", cookie[:])
				if err != nil {
					return res, err
				}
				left[i] = false
				delete(cfg.Rejoin, i)
				delete(cfg.Leave, i)
				clients[i], c = nc, nc
				helloAt[i], firstAt[i] = time.Time{}, time.Time{}
				res.Rejoined[i] = -2
				logf("client %d rejoins at %v", i, into)
			}
			if helloAt[i].IsZero() {
				helloAt[i] = now
				res.Joins[i].Hello = now.Sub(matchStart)
				if matchStart.IsZero() {
					res.Joins[i].Hello = 0
				}
			}
			if at, ok := cfg.Corrupt[i]; ok && !corrupted[i] && into >= at && c.Playing() && cfg.CorruptFn != nil {
				corrupted[i] = true
				cfg.CorruptFn(c.World())
				logf("client %d's world corrupted at %v", i, into)
			}
			if err := c.Update(now); err != nil {
				var refused *client.RefusedError
				if errors.As(err, &refused) {
					res.Refusals = append(res.Refusals, err)
					gone[i] = true
					continue
				}
				if !errors.Is(err, client.ErrKicked) && !errors.Is(err, client.ErrTimeout) {
					return res, fmt.Errorf("simmatch: client %d at %v: %w", i, now.Sub(start), err)
				}
				// Dropped (a blackout longer than the server keeps ticks,
				// say): it has left the match. Rejoining is the next step.
				gone[i] = true
				res.Dropped++
				logf("client %d left the match at %v: %v", i, into, err)
				continue
			}
			if res.Rejoined[i] == -2 {
				if id, ok := c.Player(); ok {
					res.Rejoined[i] = int(id)
				}
			}
			if verified[i] < maxTicks {
				done = false
			}
			if c.Playing() && !srv.Ended() && into >= cfg.Duration-time.Second {
				st := c.Stats()
				res.Lead[i] += float64(st.Predicted) - float64(st.Verified)
				leadN[i]++
			}
		}
		if srv.Ended() && atEnd == nil {
			for _, c := range clients {
				atEnd = append(atEnd, c.Stats())
			}
		}
		if done {
			break
		}
	}
	if atEnd == nil {
		return res, fmt.Errorf("simmatch: the match did not end (server at tick %d of %d)", srv.Tick(), maxTicks)
	}

	res.Server = srv.Stats()
	res.Ticks = srv.Tick()
	res.PlayerTicks = res.Server.PlayerTicks
	res.ServerBytesOut = res.Server.BytesOut
	res.Verified = ^uint32(0)
	for i, c := range clients {
		st := c.Stats()
		res.Clients = append(res.Clients, st)
		res.Desyncs += st.Desyncs
		res.Resyncs += st.Resyncs
		res.Rollbacks += st.Rollbacks
		res.Stalls += atEnd[i].Stalls
		res.MaxRollback = max(res.MaxRollback, st.MaxRollback)
		res.ClientBytesIn += st.BytesIn
		res.ClientBytesOut += st.BytesOut
		res.Verified = min(res.Verified, verified[i])
		if leadN[i] > 0 {
			res.Lead[i] /= float64(leadN[i])
		}
		if first := res.Joins[i].FirstTick; first > 0 && verified[i] == res.Ticks && res.ClientVerifiedTicks[i] >= uint64(res.Ticks-first+1) {
			res.FullyVerified++
		}
	}
	res.VerifiedEqual = res.Mismatches == 0 && res.Verified > 0
	return res, nil
}

// drain is how long after the match's end the clients get to verify its
// last tick.
const drain = 10 * time.Second

func rateOf(g any) int { return game.RateOf(g) }

func clientName(i int) string { return fmt.Sprintf("c%d", i) }
