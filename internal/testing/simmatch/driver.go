package simmatch

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/transport"
)

// driver drives client i of a match: it holds it back until it joins,
// closes it when it leaves and makes a new one when it rejoins, corrupts
// its world on cue, updates it, and checks and counts what it verifies.
type driver[I any] struct {
	m         *match[I]
	i         int
	c         *client.Client[I]
	verified  uint32 // the last tick it verified
	gone      bool   // refused or dropped: out of the match
	left      bool   // closed (Config.Leave), not rejoined yet
	rejoined  bool   // has rejoined: Leave and Rejoin are spent
	corrupted bool
	helloAt   time.Time
	firstAt   time.Time // when it verified its first tick
	leadN     int       // samples summed in Result.Lead[i]
	shown     uint32    // a lockstep client's shown tick at the last check
	lockstep  bool      // it shows only verified ticks (lockstep or spectating)
}

// newClient dials the server as name and makes the client, with cookie to
// rejoin with (nil for a first join).
func (d *driver[I]) newClient(name string, cookie []byte) (*client.Client[I], error) {
	m, cfg := d.m, &d.m.cfg
	conn, err := m.net.Dial(name, "server")
	if err != nil {
		return nil, err
	}
	m.conns = append(m.conns, conn)
	m.counted.client[conn.LocalAddr()] = d.i
	ccfg := cfg.Client
	ccfg.Cookie = cookie
	if cfg.Lockstep[d.i] {
		ccfg.Lockstep = true
	}
	if cfg.ClientConfig != nil {
		cfg.ClientConfig(d.i, &ccfg)
	}
	d.lockstep = ccfg.Lockstep || ccfg.Spectate
	userVerified := ccfg.OnVerified
	ccfg.OnVerified = func(t uint32, h uint64) {
		d.onVerified(conn.LocalAddr(), t, h)
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
	if cfg.Names {
		_ = c.SetName(fmt.Sprintf("p%d", d.i)) // an empty stream: it fits
	}
	if cfg.Bot != nil {
		c.SetInputFunc(func(t uint32) I {
			id, _ := c.Player()
			return cfg.Bot(id, t)
		})
	}
	return c, nil
}

// onVerified checks tick t's hash against the server's and counts it, and
// notes the client's first verified tick (its join).
func (d *driver[I]) onVerified(addr transport.Addr, t uint32, h uint64) {
	m, res := d.m, &d.m.res
	res.VerifiedTicks++
	res.ClientVerifiedTicks[d.i]++
	d.verified = t
	if int(t) > len(m.hashes) || m.hashes[t-1] != h {
		res.Mismatches++
	}
	if d.firstAt.IsZero() {
		d.firstAt = m.now
		res.Joins[d.i].FirstTick = t
		res.Joins[d.i].FirstVerified = m.now.Sub(d.helloAt)
		res.Joins[d.i].Bytes = m.counted.to[addr]
	}
}

// step runs the client for one driver step and reports whether the match
// must wait for it (it has yet to join, to rejoin, or to verify the last
// tick).
func (d *driver[I]) step() (waiting bool, err error) {
	m, cfg := d.m, &d.m.cfg
	started, into := !m.matchStart.IsZero(), m.into
	if p, ok := cfg.Pause[d.i]; ok && started && into >= p.At && into < p.At+p.Length {
		return false, nil
	}
	if d.gone {
		return false, nil
	}
	if at, ok := cfg.JoinAt[d.i]; ok && (!started || into < at) {
		return true, nil
	}
	if wait, err := d.leaveOrRejoin(); wait || err != nil {
		return d.left && !d.rejoined && hasKey(cfg.Rejoin, d.i), err
	}
	if d.helloAt.IsZero() {
		d.helloAt = m.now
		m.res.Joins[d.i].Hello = m.now.Sub(m.matchStart)
		if !started {
			m.res.Joins[d.i].Hello = 0
		}
	}
	if at, ok := cfg.Corrupt[d.i]; ok && !d.corrupted && into >= at && d.c.Playing() && cfg.CorruptFn != nil {
		d.corrupted = true
		cfg.CorruptFn(d.c.World())
		m.logf("client %d's world corrupted at %v", d.i, into)
	}
	t0, _ := cputime.Thread()
	err = d.c.Update(m.now)
	t1, _ := cputime.Thread()
	m.res.ClientCPU += t1 - t0
	m.res.ClientCPUs[d.i] += t1 - t0
	if err != nil {
		return false, d.failed(err)
	}
	d.checkShown()
	d.heardWaiting()
	if m.res.Rejoined[d.i] == -2 {
		if id, ok := d.c.Player(); ok {
			m.res.Rejoined[d.i] = int(id)
		}
	}
	if d.c.Playing() && !m.srv.Ended() && into >= cfg.Duration-time.Second {
		st := d.c.Stats()
		m.res.Lead[d.i] += float64(st.Predicted) - float64(st.Verified)
		d.leadN++
	}
	return d.verified < m.maxTicks, nil
}

// heardWaiting notes whom the server's stall messages named to the
// client, and the names it had for them.
func (d *driver[I]) heardWaiting() {
	res := &d.m.res
	w := d.c.WaitingFor()
	res.HeardWaiting[d.i] |= w
	for p := range 64 {
		if w&(1<<p) == 0 {
			continue
		}
		if n := d.c.Name(game.PlayerID(p)); n != "" && !slices.Contains(res.HeardNames[d.i], n) {
			res.HeardNames[d.i] = append(res.HeardNames[d.i], n)
		}
	}
}

// checkShown checks a lockstep client's or a spectator's shown world,
// when it moved, against the server's hash of the tick it shows.
func (d *driver[I]) checkShown() {
	m := d.m
	if !d.lockstep || !d.c.Playing() {
		return
	}
	st := d.c.Stats()
	if st.Predicted == d.shown || st.Predicted == 0 {
		return
	}
	d.shown = st.Predicted
	m.res.ShownTicks++
	if st.Predicted != st.Verified {
		m.res.ShownUnverified++
	}
	if int(st.Predicted) > len(m.hashes) || d.c.World().Hash() != m.hashes[st.Predicted-1] {
		m.res.ShownMismatches++
	}
}

// leaveOrRejoin closes the client at its Leave time and makes a new one at
// its Rejoin time (with the first one's cookie, or a wrong one); it
// reports whether the client is out for this step.
func (d *driver[I]) leaveOrRejoin() (out bool, err error) {
	m, cfg := d.m, &d.m.cfg
	if d.rejoined || m.matchStart.IsZero() {
		return false, nil
	}
	if at, ok := cfg.Leave[d.i]; ok && !d.left && m.into >= at {
		d.left = true
		_ = d.c.Close()
		m.logf("client %d left at %v", d.i, m.into)
	}
	if !d.left {
		return false, nil
	}
	if at, ok := cfg.Rejoin[d.i]; !ok || m.into < at {
		return true, nil
	}
	cookie, _ := d.c.Cookie()
	if cfg.RejoinWrongCookie {
		cookie[0] ^= 1
	}
	nc, err := d.newClient(clientName(d.i)+"r", cookie[:])
	if err != nil {
		return true, err
	}
	d.left, d.rejoined = false, true
	d.c = nc
	d.helloAt, d.firstAt = time.Time{}, time.Time{}
	m.res.Rejoined[d.i] = -2
	m.logf("client %d rejoins at %v", d.i, m.into)
	return false, nil
}

// failed takes the error of the client's Update: a refusal or a drop
// takes it out of the match; anything else fails the match.
func (d *driver[I]) failed(err error) error {
	m := d.m
	d.gone = true
	var refused *client.RefusedError
	var ended *client.EndedError
	if errors.As(err, &ended) {
		m.res.Ends[d.i] = ended
		m.res.FinalHashes[d.i] = d.c.Stats().VerifiedHash
		m.res.FinalWorlds[d.i] = d.c.World().Hash()
		m.logf("client %d: %v", d.i, err)
		return nil
	}
	if errors.As(err, &refused) {
		m.res.Refusals = append(m.res.Refusals, err)
		return nil
	}
	if !errors.Is(err, client.ErrKicked) && !errors.Is(err, client.ErrTimeout) {
		return fmt.Errorf("simmatch: client %d at %v: %w", d.i, m.now.Sub(m.start), err)
	}
	// Dropped (a blackout longer than the server keeps ticks, say): it has
	// left the match. Rejoining is the next step.
	m.res.Dropped++
	m.logf("client %d left the match at %v: %v", d.i, m.into, err)
	return nil
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// drain is how long after the match's end the clients get to verify its
// last tick.
const drain = 10 * time.Second

func rateOf(g any) int { return game.RateOf(g) }

func clientName(i int) string { return fmt.Sprintf("c%d", i) }
