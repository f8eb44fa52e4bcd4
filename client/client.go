// Package client is rewind's predicting client. It runs ahead of the
// authoritative server by about half the round trip plus a small margin,
// applies its own input at once, guesses the other players' inputs by
// repeating their last ones, keeps a snapshot of every tick from the last
// verified one to the predicted one, and when the server's tick shows a
// wrong guess it restores the snapshot before that tick and simulates
// again with the right inputs. Every verified tick's world hash is checked
// against the server's: a difference that survives resimulation is a
// desync, counted and reported.
//
// A Client is a single-threaded state machine: the caller owns it and
// drives it with Update(now). It reads no clock and opens no socket;
// datagrams come and go through the transport.Conn it was given.
//
// SyncTest runs a game alone, rolling back every tick, to catch
// non-determinism in a game before it desyncs a match.
package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

type phase uint8

const (
	connecting    phase = iota
	gettingModule       // welcomed; getting the game's module (module.go)
	loading             // welcomed; getting the server's world (fetch.go)
	playing
	closed
)

// String names the phase, as a timeout's error says it.
func (p phase) String() string {
	switch p {
	case connecting:
		return "connecting"
	case gettingModule:
		return "getting the game's module"
	case loading:
		return "loading the world"
	case playing:
		return "playing"
	}
	return "closed"
}

// Client is one player's side of a match of game g over a transport.Conn
// to the server.
type Client[I any] struct {
	cfg    Config
	given  Config // cfg as given, for the defaults of another tick rate
	g      game.Game[I]
	it     *inputs.Type[I]
	conn   transport.Conn
	schema *world.Schema
	w      *world.World
	fp     uint64
	rate   int // the game's own tick rate; the welcome's must match
	phase  phase
	err    error

	me       game.PlayerID
	tag      uint8
	dt       time.Duration
	hashBits uint8
	window   uint32 // MaxPrediction in ticks

	core    *core[I]
	rx      tickIntake[I]
	tx      inputSend[I]
	clock   timing
	join    joinState
	fetch   fetch
	mod     moduleFetch  // the game's module, when the game lacks it (module.go)
	debug   debugDesync  // the desync debugger (debug.go)
	ho      handoverHeld // host migration data (handover.go)
	ls      lockstepState
	waiting waitingState // the server's stall (lockstep.go)
	chat    chatState    // match messages (chat.go)

	rbuf, sbuf []byte
	st         Stats
}

// tickIntake is what the client keeps for the server's tick stream: the
// bodies received and waiting to be decoded in order, the decoder, what
// it acknowledges, and scratch for the confirmed ticks it hands the core.
type tickIntake[I any] struct {
	dec        *codec.TickDecoder
	tk         codec.Tick
	ticksMsg   codec.ServerTicks
	bodies     [][]byte // received tick bodies waiting to be decoded
	spare      [][]byte // emptied body buffers, for the next bodies
	bodyAt     []uint32
	bmask      uint32
	decodeNext uint32
	recvWin    reliable.RecvWindow
	latest     uint32    // highest tick number heard of
	latestAt   time.Time // when it arrived
	conf       []byte    // scratch: a tick's confirmed inputs, n×size
	priv       []byte    // our input as the server last had it: its private fields (private.go)
	events     []game.Event
}

// inputSend is what the client keeps for its own inputs: where they come
// from, what the server has acknowledged, and the buffers of the
// ClientInputs it sends.
type inputSend[I any] struct {
	input    I
	inputFn  func(tick uint32) I
	packed   []byte
	sendIns  [][]byte
	payload  []byte
	inputAck uint32 // the server holds our inputs below this tick
	firstOwn uint32 // the first tick whose input we send
}

// timing is the client's clocks: when it last heard, sent and pinged, the
// round trip, and the lead over the server's clock (lead.go).
type timing struct {
	helloSent  time.Time
	helloFirst time.Time
	rtt        time.Duration
	pingID     uint32
	pingAt     time.Time
	pongSent   time.Time // the send time of the ping of the last pong taken
	lastHeard  time.Time
	lastSend   time.Time
	lastNow    time.Time

	lead leadControl
	// leadRTT is the round trip the lead started from; leadMeasured says
	// whether a ping measured it since.
	leadRTT      time.Duration
	leadMeasured bool
}

// joinState is what the client keeps from its welcome: the cookie to
// rejoin with, the transfer of the world, the world as Setup made it,
// and the datagrams that came before the welcome.
type joinState struct {
	cookie      [codec.CookieSize]byte
	welcomeID   uint32 // the transfer id of the last welcome taken
	welcomeTick uint32
	setup       world.Snapshot // the world as Setup made it
	early       [][]byte       // datagrams that came before the welcome
	settings    []byte         // the welcome's match settings
}

// New returns a client of game g that will connect through conn (a
// client-side Conn whose RemoteAddr is the server). Nothing is sent until
// the first Update.
func New[I any](g game.Game[I], conn transport.Conn, cfg Config) (*Client[I], error) {
	if conn.RemoteAddr() == "" {
		return nil, fmt.Errorf("client: conn has no remote address: %w", ErrConfig)
	}
	if !validRoom(cfg.Room) {
		return nil, fmt.Errorf("client: room %q: want 6 printable ASCII characters: %w", cfg.Room, ErrConfig)
	}
	it, err := inputs.TypeOf[I](g)
	if err != nil {
		return nil, fmt.Errorf("client: input type: %w", err)
	}
	if err := checkHostSettings(g, &cfg); err != nil {
		return nil, err
	}
	schema, w, err := game.NewWorld(g, cfg.Schema)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	rate := game.RateOf(g)
	c := &Client[I]{
		g: g, it: it, conn: conn, schema: schema, w: w, rate: rate,
		fp:   game.Fingerprint(it.Fingerprint(), w.Layout().Hash(), rate),
		dt:   time.Second / time.Duration(rate),
		tx:   inputSend[I]{packed: make([]byte, it.Size())},
		rbuf: make([]byte, transport.MaxDatagram+1),
		sbuf: make([]byte, 0, transport.MaxDatagram),
	}
	c.cfg, c.given = cfg.withDefaults(c.dt), cfg
	w.SnapshotInto(&c.join.setup)
	if cfg.Resume != nil {
		if err := c.resume(cfg.Resume); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// SetInput sets the input the client applies to the ticks it predicts from
// now on (after InputDelay), until changed.
func (c *Client[I]) SetInput(in I) { c.tx.input = in }

// SetInputFunc makes the client ask fn for its input of each tick it
// predicts (the tick the input applies to, after InputDelay), instead of
// using SetInput's.
func (c *Client[I]) SetInputFunc(fn func(tick uint32) I) { c.tx.inputFn = fn }

// World returns the predicted world. It changes with every Update;
// callers must not change it.
func (c *Client[I]) World() *world.World { return c.w }

// CopyWorldAt makes dst (a world of the client's layout) a copy of the
// world after tick t as the client last simulated it, and reports whether
// it could: the client holds every tick from the verified one to the
// predicted one (snapshots of its rollback ring). A view uses it for the
// tick before the predicted one, to draw between the two. It copies the
// world's bytes in use and does not allocate.
func (c *Client[I]) CopyWorldAt(t uint32, dst *world.World) bool {
	k := c.core
	if k == nil || t < k.verified || t > k.predicted {
		return false
	}
	if k.lockstep {
		// No snapshots: only the shown world itself.
		return t == k.predicted && dst.CopyFrom(c.w) == nil
	}
	return dst.Restore(&k.snaps[t&k.mask]) == nil
}

// Player returns the client's player id and whether it was welcomed yet.
func (c *Client[I]) Player() (game.PlayerID, bool) {
	return c.me, c.welcomed() && !c.cfg.Spectate
}

// welcomed reports whether the client took its welcome (not while it
// still gets the game's module: its game is not the match's yet).
func (c *Client[I]) welcomed() bool { return c.phase != connecting && c.phase != gettingModule }

// Playing reports whether the client has been welcomed and is in the match.
func (c *Client[I]) Playing() bool { return c.phase == playing }

// Fingerprint returns the game compatibility fingerprint the client sends.
func (c *Client[I]) Fingerprint() uint64 { return c.fp }

// Alpha returns how far now lies between the predicted tick and the next
// one, in [0, 1], for drawing between the last two ticks. It is 1 while
// prediction waits for the server.
func (c *Client[I]) Alpha(now time.Time) float64 {
	if c.core == nil || !c.clock.lead.started {
		return 0
	}
	if c.cfg.Lockstep {
		return 1 // the shown tick is the newest there is
	}
	if int64(c.core.predicted) < c.clock.lead.tick(now) {
		return 1
	}
	return c.clock.lead.fraction(now)
}

// Stats returns the client's counters.
func (c *Client[I]) Stats() Stats {
	st := c.st
	st.Player = c.me
	st.Ping = c.clock.rtt
	st.LeadCorrections = c.clock.lead.corrections
	st.InputDelay = c.cfg.InputDelay
	st.WaitingFor = c.waiting.set
	if k := c.core; k != nil {
		st.Verified = k.verified
		st.VerifiedHash = k.verifiedHash()
		st.Predicted = k.predicted
		st.Rollbacks = k.rollbacks
		st.RolledBackTicks = k.rolledBack
		st.MaxRollback = k.maxDepth
		st.Desyncs = k.desyncs
		st.Steps = k.steps
		for _, p := range k.presentV {
			if p {
				st.Players++
			}
		}
		for i := range k.snaps {
			st.SnapshotBytes += uint64(k.snaps[i].Len())
		}
	}
	return st
}

// Update handles every waiting datagram, folds the server's ticks in
// (rolling back where a guess was wrong), predicts up to where the client
// should be at now, and sends its inputs. It returns an error when the
// client was refused, timed out, was closed or the Conn failed.
//
// Its phases, in order: receive (every datagram, parsed and stored: tick
// bodies are decoded and confirmed to the rollback machine, but no tick is
// simulated), the server timeout, then by phase: the hello (connecting),
// the world's fetch (loading), or, playing, fold (simulate what was
// confirmed, or wait for a repair), predict (up to the lead's tick), send
// the inputs and ping.
func (c *Client[I]) Update(now time.Time) error {
	if c.err != nil {
		return c.err
	}
	now = c.tick(now)
	if err := c.receive(now); err != nil {
		c.err = err
		return err
	}
	if err := c.stepFailed(); err != nil { // before fold compares hashes
		return err
	}
	if now.Sub(c.clock.lastHeard) > c.cfg.ServerTimeout {
		// Where the client was and what crossed the Conn say which side
		// went quiet (a hello never answered, a fetch stalled, a match
		// that stopped).
		c.err = fmt.Errorf("client: nothing from the server for %v while %s (%d bytes in, %d out): %w",
			now.Sub(c.clock.lastHeard), c.phase, c.st.BytesIn, c.st.BytesOut, ErrTimeout)
		return c.err
	}
	switch c.phase {
	case closed:
		return ErrClosed
	case connecting:
		return c.hello(now)
	case gettingModule:
		return c.moduleTimers(now)
	case loading:
		return c.load(now)
	}
	if err := c.fold(now); err != nil {
		return err
	}
	if err := c.stepFailed(); err != nil {
		return err
	}
	if c.advance(now) || now.Sub(c.clock.lastSend) >= c.dt {
		if err := c.sendInputs(now); err != nil {
			return err
		}
	}
	if err := c.sendChat(now); err != nil {
		return err
	}
	return c.ping(now)
}

// tick takes now for this Update: never before the last one (a clock
// that stepped back), and the start of the clocks at the first.
func (c *Client[I]) tick(now time.Time) time.Time {
	if now.Before(c.clock.lastNow) {
		now = c.clock.lastNow
	}
	c.clock.lastNow = now
	if c.clock.helloFirst.IsZero() {
		c.clock.helloFirst = now
		c.clock.lastHeard = now
	}
	return now
}

// validRoom reports whether room is empty or a code a Hello can carry:
// codec.RoomCodeSize to codec.MaxRoomCodeSize printable ASCII characters.
func validRoom(room string) bool {
	if room == "" {
		return true
	}
	var h codec.Hello
	return h.SetRoom(room)
}

// hello sends a hello every HelloInterval until the server answers.
func (c *Client[I]) hello(now time.Time) error {
	if !c.clock.helloSent.IsZero() && now.Sub(c.clock.helloSent) < c.cfg.HelloInterval {
		return nil
	}
	c.clock.helloSent = now
	h := codec.Hello{Game: c.fp}
	if c.cfg.HostSettings {
		h.Game, h.HostSettings = game.BaseFingerprint(c.it.Fingerprint()), true
	}
	if len(c.cfg.Cookie) == codec.CookieSize {
		h.HasCookie = true
		copy(h.Cookie[:], c.cfg.Cookie)
	}
	if c.cfg.Room != "" {
		h.SetRoom(c.cfg.Room) // checked by New (validRoom)
	}
	if c.cfg.Spectate {
		h.Spectator = true
		h.Delay = uint32(min(c.cfg.SpectateDelay.Milliseconds(), 1<<31))
	}
	return c.send(h.Append(c.sbuf[:0]))
}

// load runs the world fetch's timers and acknowledges the server's ticks
// once a tick while the world loads.
func (c *Client[I]) load(now time.Time) error {
	if err := c.fetchTimers(now); err != nil {
		return err
	}
	if now.Sub(c.clock.lastSend) >= c.dt {
		return c.sendAcks(now)
	}
	return nil
}

// fold simulates the confirmed ticks (the core rolls back where a guess
// was wrong), decoding the bodies that waited for room in the core's
// rings, until none waits; a tick whose hash still differs starts a
// repair, during which the world waits (fetch timers only).
func (c *Client[I]) fold(now time.Time) error {
	if c.fetch.active {
		return c.fetchTimers(now)
	}
	for {
		c.core.process()
		if c.core.broken != 0 {
			c.startRepair(now)
			return nil
		}
		if c.rx.bodyAt[c.rx.decodeNext&c.rx.bmask] != c.rx.decodeNext {
			return nil
		}
		if err := c.decode(now); err != nil {
			c.st.BadDatagrams++ // as when decoding on arrival
			return nil
		}
	}
}

// advance predicts (or, in lockstep, samples our input) and reports
// whether there are new inputs to send.
func (c *Client[I]) advance(now time.Time) bool {
	if c.cfg.Lockstep {
		return c.lockstepUpdate(now)
	}
	return c.predict(now)
}

// predict advances the predicted world to the lead's tick for now (our
// input sampled for each tick), no further than the prediction window past
// the verified tick, and reports whether it advanced.
func (c *Client[I]) predict(now time.Time) bool {
	if !c.clock.lead.started || c.fetch.active {
		return false
	}
	c.clock.lead.advance(now)
	target := c.clock.lead.tick(now)
	advanced := false
	for int64(c.core.predicted) < target {
		if c.core.predicted-c.core.verified >= c.window {
			c.st.Stalls++
			break
		}
		c.sample(c.core.predicted + 1 + uint32(c.cfg.InputDelay))
		c.core.advance()
		advanced = true
	}
	return advanced
}

// ping sends a ping every PingInterval (every HelloInterval until one
// measured the round trip the lead started from).
func (c *Client[I]) ping(now time.Time) error {
	interval := c.cfg.PingInterval
	if !c.clock.leadMeasured {
		interval = min(interval, c.cfg.HelloInterval) // measure soon
	}
	if now.Sub(c.clock.pingAt) < interval {
		return nil
	}
	c.clock.pingAt = now
	c.clock.pingID++
	p := codec.Ping{Tag: c.tag, ID: c.clock.pingID, Time: uint64(now.Sub(c.clock.helloFirst))}
	return c.send(p.Append(c.sbuf[:0]))
}

// sample records our input for tick u.
func (c *Client[I]) sample(u uint32) {
	in := c.tx.input
	if c.tx.inputFn != nil {
		in = c.tx.inputFn(u)
	}
	shown := c.core.predicted + 1 // the tick about to be predicted
	if c.cfg.Lockstep {
		shown = c.core.verified
	}
	c.st.InputLatencySum += uint64(u - shown)
	c.st.InputSamples++
	p := c.it.Pack(c.tx.packed, &in)
	if c.it.Sanitize(p) != nil {
		clear(p) // an enum out of range: the server would refuse it too
	}
	c.core.setOwn(u, p)
}

// Close says bye to the server (three times: a bye is not acknowledged)
// and stops the client. It does not close the Conn.
func (c *Client[I]) Close() error {
	if c.phase == closed {
		return nil
	}
	if c.phase == playing || c.phase == loading || c.phase == gettingModule {
		b := codec.Bye{Tag: c.tag, Reason: codec.ReasonNone}
		for range 3 {
			_ = c.send(b.Append(c.sbuf[:0]))
		}
	}
	c.phase = closed
	c.err = ErrClosed
	return nil
}

func (c *Client[I]) send(b []byte) error {
	c.st.DatagramsOut++
	c.st.BytesOut += uint64(len(b))
	if err := c.conn.Send(c.conn.RemoteAddr(), b); err != nil && errors.Is(err, transport.ErrClosed) {
		return fmt.Errorf("client: send: %w", err)
	}
	return nil
}

// stepFailed ends the client with the game's Step failure, if any (a
// WebAssembly module that trapped or ran past its budget:
// game.StepFailer).
func (c *Client[I]) stepFailed() error {
	if c.core == nil || c.core.stepErr == nil {
		return nil
	}
	c.err = fmt.Errorf("client: %w", c.core.stepErr)
	return c.err
}
