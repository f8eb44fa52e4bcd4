// Package privatesim plays the cards example (games/cards) in the
// network simulator with every datagram the server sends captured, and
// checks what each player was sent against what it may know: the
// measurement behind `rewind-bench private` and the capture tests of
// private scenes (docs/scenes.md).
//
// Leaks are searched for, not assumed away: every card the server's world
// holds carries a random 32-bit nonce followed by its value, so the five
// bytes of a card a player may not know are searched for in every
// datagram sent to it and in its client's world after every update; so
// are the dealer's generator's state words (8 bytes each). A card the
// player was allowed to know at some tick (on the table, in the hand it
// held) is not counted afterwards: what it once saw it may keep.
//
// With Config.Spectator a spectator watches too: it may know the table
// only (the public scene), and everything it is sent is searched the same
// way.
package privatesim

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Config is a match to play. The zero value of a field means its default.
type Config struct {
	// Players is the seats (default 4, at most cards.MaxPlayers).
	Players int
	// Ticks is the ticks to play (default 2000).
	Ticks uint32
	// Loss is every link's loss (0 to 1); Latency and Jitter its delay
	// (default 30 ms ± 5 ms).
	Loss            float64
	Latency, Jitter time.Duration
	// Seed seeds the network simulator and the server's secret.
	Seed int64
	// Public plays cards.NewPublic: everything sent to everyone (the
	// leak search then finds the secrets it is meant to find).
	Public bool
	// Spectator adds a spectator (client.Config.Spectate) from the start,
	// SpectatorDelay behind (client.Config.SpectateDelay). With a delay or
	// a later start its tick bodies are not decoded for inputs
	// (Result.SpectatorRelayed 0): the decoding starts from tick 1.
	// SpectatorFrom is the server tick after which it says hello (0: at
	// once, with the players).
	Spectator      bool
	SpectatorDelay time.Duration
	SpectatorFrom  uint32
	// OnTick, if set, is called after every server tick with the
	// server's world.
	OnTick func(tick uint32, w *world.World)
}

// Result is what the match showed.
type Result struct {
	Players int
	Public  bool
	Ticks   uint32
	Seconds float64
	// LeakedBytes counts bytes of hidden values found where a player may
	// not see them: in datagrams sent to it (LeakedDatagram) and in its
	// client's world (LeakedWorld); LeakedValues counts the finds.
	LeakedBytes, LeakedDatagram, LeakedWorld, LeakedValues int
	// VerifiedTicks counts client-ticks verified; Unequal those whose hash
	// differed from the server's hash of that client's view.
	VerifiedTicks, Unequal int
	// Desyncs counts verified ticks whose hash differed first (hidden
	// reads mispredicted); Repairs the repairs that fixed them; Rebases
	// the clients moved to a newer world.
	Desyncs, Repairs, Rebases uint64
	// BytesToClients counts every byte the server sent; Datagrams them.
	BytesToClients, Datagrams uint64
	// ServerCPU is the server's thread CPU time; ViewHashes the view
	// hashes it computed.
	ServerCPU  time.Duration
	ViewHashes uint64
	// Secrets counts the distinct hidden values searched for.
	Secrets int
	// PrivateInputsSeen counts, over every tick body each player was
	// sent and decoded as a modified client would, the inputs of other
	// players whose private field (cards.Input.Note) was not zero;
	// RelayedTicks counts the ticks so decoded.
	PrivateInputsSeen, RelayedTicks int
	// Swaps counts the hands that changed viewers (cards.Swap) in the
	// server's world; HandsMatch says whether every client's verified
	// world at the last tick showed it the cards the server's did (its
	// hand and the table) and its own private note.
	Swaps      int
	HandsMatch bool
	// With Config.Spectator: SpectatorVerified counts the ticks the
	// spectator verified and SpectatorUnequal those whose hash differed
	// from the server's hash of the public scene; SpectatorLeaked counts
	// the bytes of hidden values (every card but the table's, generator
	// words, notes) found in what it was sent and in its world, and
	// SpectatorPrivateInputs the private inputs its tick bodies showed
	// (SpectatorRelayed: the ticks decoded); SpectatorBytes is what it
	// was sent (not in BytesToClients).
	SpectatorVerified, SpectatorUnequal, SpectatorLeaked int
	SpectatorPrivateInputs, SpectatorRelayed             int
	SpectatorBytes                                       uint64
	// SpectatorRepairs counts the spectator's repairs (hidden reads
	// mispredicted: the dealer draws from the deck it cannot see).
	SpectatorRepairs uint64
}

// BytesPerClientPerSecond returns the server's bytes per client per
// second of match time.
func (r Result) BytesPerClientPerSecond() float64 {
	if r.Players == 0 || r.Seconds == 0 {
		return 0
	}
	return float64(r.BytesToClients) / float64(r.Players) / r.Seconds
}

// CPUPerPlayerTick returns the server's CPU time per player-tick.
func (r Result) CPUPerPlayerTick() time.Duration {
	if r.Players == 0 || r.Ticks == 0 {
		return 0
	}
	return r.ServerCPU / time.Duration(uint64(r.Players)*uint64(r.Ticks))
}

// VerifiedEqual reports whether every verified tick of every client
// hashed as the server's view of that client.
func (r Result) VerifiedEqual() bool { return r.Unequal == 0 && r.VerifiedTicks > 0 }

// Leaked returns the hidden values found in all: bytes of hidden cards,
// generator words and notes, and private inputs decoded.
func (r Result) Leaked() int { return r.LeakedBytes + r.PrivateInputsSeen }

// String is the result's key=value line.
func (r Result) String() string {
	return fmt.Sprintf("private_inputs_seen=%d relayed_ticks=%d players=%d ticks=%d public=%v secrets=%d leaked_values=%d leaked_in_datagrams=%d leaked_in_worlds=%d verified_ticks=%d desyncs=%d repairs=%d rebases=%d view_hashes=%d server_cpu_per_player_tick_ns=%d leaked_bytes=%d verified_equal=%v hidden_read_repairs=%d bytes_per_client_per_s=%.0f",
		r.PrivateInputsSeen, r.RelayedTicks, r.Players, r.Ticks, r.Public, r.Secrets, r.LeakedValues, r.LeakedDatagram, r.LeakedWorld, r.VerifiedTicks, r.Desyncs, r.Repairs, r.Rebases,
		r.ViewHashes, r.CPUPerPlayerTick().Nanoseconds(), r.LeakedBytes, r.VerifiedEqual(), r.Repairs, r.BytesPerClientPerSecond())
}

// secrets is what the search knows: every card ever in the server's world
// (by its five signature bytes) and generator state word, and per player
// which of them it was allowed to know.
type secrets struct {
	cards   map[uint64]bool   // signature -> known
	words   map[uint64]bool   // generator state words
	allowed []map[uint64]bool // per player: signatures it may know
	public  map[uint64]bool   // signatures a spectator may know (the table)
	notes   map[uint32]int    // the bots' private notes -> the seat that wrote it
}

// sig returns a card's signature: its nonce's 4 bytes and its value.
func sig(c cards.Card) uint64 { return uint64(c.Nonce) | uint64(c.Value)<<32 }

// note records the server's world after a tick: every card and state
// word as a secret, and what each player may know now.
func (s *secrets) note(g *cards.Game, w *world.World, players int, buf []cards.Card) []cards.Card {
	for p := range players {
		buf = g.Secrets(w, p, buf[:0])
		for _, c := range buf {
			s.cards[sig(c)] = true
		}
		buf = g.Visible(w, p, buf[:0])
		for _, c := range buf {
			s.allowed[p][sig(c)] = true
		}
	}
	buf = g.Visible(w, -1, buf[:0]) // the table
	for _, c := range buf {
		s.public[sig(c)] = true
	}
	for _, x := range g.RNGState(w) {
		s.words[x] = true
	}
	return buf
}

// search returns how many bytes of values hidden from player p b holds,
// and how many values. A p outside the seats (a player not yet welcomed)
// may know nothing.
func (s *secrets) search(p int, b []byte) (bytes, values int) {
	var allowed map[uint64]bool
	if p >= 0 && p < len(s.allowed) {
		allowed = s.allowed[p]
	}
	return s.searchAllowed(p, allowed, b)
}

// searchAllowed is search for a reader p (-1: no seat) that may know the
// cards in allowed.
func (s *secrets) searchAllowed(p int, allowed map[uint64]bool, b []byte) (bytes, values int) {
	for i := 0; i+5 <= len(b); i++ {
		k := uint64(binary.LittleEndian.Uint32(b[i:])) | uint64(b[i+4])<<32
		if s.cards[k] && !allowed[k] {
			bytes += 5
			values++
		}
		if owner, ok := s.notes[binary.LittleEndian.Uint32(b[i:])]; ok && owner != p {
			bytes += 4
			values++
		}
		if i+8 <= len(b) && s.words[binary.LittleEndian.Uint64(b[i:])] {
			bytes += 8
			values++
		}
	}
	return bytes, values
}

// capture is the server's Conn, searching every datagram it sends.
type capture struct {
	transport.Conn
	on func(to transport.Addr, p []byte)
}

// Send searches p, then sends it.
func (c *capture) Send(to transport.Addr, p []byte) error {
	c.on(to, p)
	return c.Conn.Send(to, p)
}

// Run plays the match and returns what it showed.
func Run(cfg Config) (Result, error) {
	cfg = withDefaults(cfg)
	runtime.LockOSThread() // the server's CPU time is this thread's
	defer runtime.UnlockOSThread()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(cfg.Seed, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: cfg.Latency, Jitter: cfg.Jitter, Loss: cfg.Loss})
	r, err := newRun(cfg)
	if err != nil {
		return r.res, err
	}
	sconn, err := net.Listen("server")
	if err != nil {
		return r.res, err
	}
	defer sconn.Close()
	srv, err := server.New[cards.Input](r.sg, &capture{Conn: sconn, on: r.captured}, r.serverConfig())
	if err != nil {
		return r.res, err
	}
	clis := make([]*client.Client[cards.Input], cfg.Players)
	for i := range clis {
		conn, err := net.Dial(fmt.Sprintf("c%d", i), "server")
		if err != nil {
			return r.res, err
		}
		defer conn.Close()
		if clis[i], err = r.newPlayer(conn); err != nil {
			return r.res, err
		}
	}
	var spec *client.Client[cards.Input]
	if cfg.Spectator {
		conn, err := net.Dial("spectator", "server")
		if err != nil {
			return r.res, err
		}
		defer conn.Close()
		if spec, err = r.newSpectator(conn); err != nil {
			return r.res, err
		}
	}
	if err := loop(cfg, net, srv, clis, spec, r.sec, &r.res, start); err != nil {
		return r.res, err
	}
	r.res.RelayedTicks = r.relay.decoded
	if rl := r.relay.players[r.specAddr]; spec != nil && rl != nil {
		r.res.SpectatorRelayed = int(rl.next - 1)
		r.res.RelayedTicks -= r.res.SpectatorRelayed
	}
	r.res.HandsMatch = handsMatch(r.sg, srv.World(), clis, cfg.Ticks)
	return r.res, nil
}

// run is one match's state: the secrets searched for, the server's view
// hashes, the clients by address and the result being filled in.
type run struct {
	cfg      Config
	res      Result
	sg       *cards.Game
	newGame  func() *cards.Game
	sec      *secrets
	relay    *relayLog
	views    map[uint32][]uint64 // tick -> each player's view hash
	buf      []cards.Card
	byAddr   map[transport.Addr]*client.Client[cards.Input]
	specAddr transport.Addr // the spectator's, if any
	handOf   [cards.MaxPlayers]int
}

// newRun prepares a match of cfg: the game and the secrets to search for.
func newRun(cfg Config) (*run, error) {
	r := &run{cfg: cfg, res: Result{Players: cfg.Players, Ticks: cfg.Ticks, Public: cfg.Public},
		newGame: cards.New, views: map[uint32][]uint64{}, byAddr: map[transport.Addr]*client.Client[cards.Input]{}}
	if cfg.Public {
		r.newGame = cards.NewPublic
	}
	r.sg = r.newGame()
	r.sec = &secrets{cards: map[uint64]bool{}, words: map[uint64]bool{}, notes: map[uint32]int{}, public: map[uint64]bool{}}
	for p := range cfg.Players {
		r.sec.allowed = append(r.sec.allowed, map[uint64]bool{})
		for k := range cfg.Ticks/40 + 2*cards.MaxPlayers {
			r.sec.notes[cards.BotNote(game.PlayerID(p), k)] = p
		}
	}
	for i := range r.handOf {
		r.handOf[i] = i
	}
	var err error
	r.relay, err = newRelayLog(cfg.Public)
	return r, err
}

// overhead takes the CPU time since t0 off the server's: the search and
// the bookkeeping run inside the server's Update.
func (r *run) overhead(t0 time.Duration) {
	t1, _ := cputime.Thread()
	r.res.ServerCPU -= t1 - t0
}

// captured searches a datagram the server sends to to.
func (r *run) captured(to transport.Addr, p []byte) {
	t0, _ := cputime.Thread()
	defer r.overhead(t0)
	res := &r.res
	res.Datagrams++
	if r.specAddr != "" && to == r.specAddr {
		res.SpectatorBytes += uint64(len(p))
		n, _ := r.sec.searchAllowed(-1, r.sec.public, p)
		res.SpectatorLeaked += n
		if r.cfg.SpectatorDelay == 0 && r.cfg.SpectatorFrom == 0 { // from tick 1, like the players
			res.SpectatorPrivateInputs += r.relay.take(to, codec.SpectatorID, p)
		}
		return
	}
	res.BytesToClients += uint64(len(p))
	if c, ok := r.byAddr[to]; ok {
		id, welcomed := c.Player() // the id the server gave it: whose view it gets
		if !welcomed {
			id = 0xff
		}
		n, v := r.sec.search(int(id), p)
		res.PrivateInputsSeen += r.relay.take(to, id, p)
		res.LeakedDatagram += n
		res.LeakedBytes += n
		res.LeakedValues += v
	}
}

// serverConfig is the server's: after each tick it notes the secrets,
// every player's view hash and the hands that changed owner.
func (r *run) serverConfig() server.Config {
	var secret [32]byte
	binary.LittleEndian.PutUint64(secret[:], uint64(r.cfg.Seed)^0x5eed)
	return server.Config{MaxPlayers: cards.MaxPlayers, StartPlayers: r.cfg.Players, MaxTicks: r.cfg.Ticks, Secret: secret,
		OnTick: r.onTick}
}

// onTick is the server's OnTick.
func (r *run) onTick(t uint32, w *world.World, _ uint64) {
	t0, _ := cputime.Thread()
	defer r.overhead(t0)
	players := r.cfg.Players
	r.buf = r.sec.note(r.sg, w, players, r.buf)
	hs := make([]uint64, players+1)
	for p := range players {
		hs[p] = w.ViewHash(w.ViewOf(p))
	}
	hs[players] = w.ViewHash(1) // the public scene: a spectator's
	r.views[t] = hs
	for p := range r.handOf {
		if h := r.sg.HandOf(w, p); h != r.handOf[p] {
			r.res.Swaps++
			r.handOf[p] = h
		}
	}
	if r.cfg.OnTick != nil {
		r.cfg.OnTick(t, w)
	}
}

// newPlayer is a bot player on conn whose verified views are checked
// against the server's.
func (r *run) newPlayer(conn transport.Conn) (*client.Client[cards.Input], error) {
	var c *client.Client[cards.Input]
	ccfg := client.Config{OnVerified: func(t uint32, h uint64) {
		r.res.VerifiedTicks++
		id, _ := c.Player()
		if hs, ok := r.views[t]; !ok || int(id) >= len(hs) || hs[id] != h {
			r.res.Unequal++
		}
	}}
	c, err := client.New[cards.Input](r.newGame(), conn, ccfg)
	if err != nil {
		return nil, err
	}
	r.byAddr[conn.LocalAddr()] = c
	c.SetInputFunc(func(t uint32) cards.Input {
		id, _ := c.Player()
		return cards.Bot(id, t)
	})
	return c, nil
}

// newSpectator is the spectator on conn, its views checked against the
// public scene's.
func (r *run) newSpectator(conn transport.Conn) (*client.Client[cards.Input], error) {
	r.specAddr = conn.LocalAddr()
	players := r.cfg.Players
	ccfg := client.Config{Spectate: true, SpectateDelay: r.cfg.SpectatorDelay, OnVerified: func(t uint32, h uint64) {
		r.res.SpectatorVerified++
		if hs, ok := r.views[t]; !ok || hs[players] != h {
			r.res.SpectatorUnequal++
		}
	}}
	return client.New[cards.Input](r.newGame(), conn, ccfg)
}

// handsMatch reports whether every client's verified world at tick shows
// it the cards the server's world w does.
func handsMatch(g *cards.Game, w *world.World, clis []*client.Client[cards.Input], tick uint32) bool {
	vw := world.NewFromLayout(w.Layout())
	for _, c := range clis {
		id, _ := c.Player()
		if t, ok := c.CopyVerified(vw); !ok || t != tick {
			return false
		}
		if g.Note(w, int(id)) != g.Note(vw, int(id)) {
			return false // its own private input, back through the world
		}
		want := g.Visible(w, int(id), nil)
		got := g.Visible(vw, int(id), nil)
		if len(want) != len(got) {
			return false
		}
		for i := range want {
			if want[i] != got[i] {
				return false
			}
		}
	}
	return true
}

// loop runs the match in made-up time, a millisecond a step, until every
// client (and the spectator spec, if not nil) verified the last tick (or
// a minute past it).
func loop(cfg Config, net *transport.SimNetwork, srv *server.Server[cards.Input], clis []*client.Client[cards.Input],
	spec *client.Client[cards.Input], sec *secrets, res *Result, start time.Time) error {
	var snap world.Snapshot
	var bytes []byte
	end := start.Add(time.Duration(cfg.Ticks)*time.Second/time.Duration(game.RateOf(cards.New())) + time.Minute)
	for now := start; now.Before(end); now = now.Add(time.Millisecond) {
		net.Advance(now)
		t0, _ := cputime.Thread()
		if err := srv.Update(now); err != nil {
			return err
		}
		t1, _ := cputime.Thread()
		res.ServerCPU += t1 - t0
		done := srv.Ended()
		for i, c := range clis {
			if err := c.Update(now); err != nil {
				return fmt.Errorf("client %d: %w", i, err)
			}
			if now.Sub(start)%(10*time.Millisecond) == 0 && c.Playing() {
				c.World().SnapshotInto(&snap)
				bytes = snap.AppendBytes(bytes[:0])
				id, _ := c.Player()
				n, v := sec.search(int(id), bytes)
				res.LeakedWorld += n
				res.LeakedBytes += n
				res.LeakedValues += v
			}
			t, ok := c.VerifiedTick() // not while a repair is under way
			done = done && ok && t >= cfg.Ticks
		}
		if spec != nil && srv.Tick() >= cfg.SpectatorFrom {
			if err := spec.Update(now); err != nil {
				return fmt.Errorf("spectator: %w", err)
			}
			if now.Sub(start)%(10*time.Millisecond) == 0 && spec.Playing() {
				spec.World().SnapshotInto(&snap)
				bytes = snap.AppendBytes(bytes[:0])
				n, _ := sec.searchAllowed(-1, sec.public, bytes)
				res.SpectatorLeaked += n
			}
			t, ok := spec.VerifiedTick()
			done = done && ok && t >= cfg.Ticks
		}
		if done {
			res.Seconds = float64(cfg.Ticks) / float64(game.RateOf(cards.New()))
			break
		}
	}
	for _, c := range clis {
		st := c.Stats()
		res.Desyncs += st.Desyncs
		res.Repairs += st.Resyncs
		res.Rebases += st.Rebases
	}
	res.ViewHashes = srv.ViewHashes()
	res.Secrets = len(sec.cards) + len(sec.words)
	if spec != nil {
		res.SpectatorRepairs = spec.Stats().Resyncs
	}
	if res.Seconds == 0 {
		return fmt.Errorf("privatesim: the clients did not verify tick %d within a minute of it", cfg.Ticks)
	}
	return nil
}

func withDefaults(c Config) Config {
	if c.Players <= 0 {
		c.Players = 4
	}
	c.Players = min(c.Players, cards.MaxPlayers)
	if c.Ticks == 0 {
		c.Ticks = 2000
	}
	if c.Latency == 0 {
		c.Latency = 30 * time.Millisecond
	}
	if c.Jitter == 0 {
		c.Jitter = 5 * time.Millisecond
	}
	return c
}
