//go:build !js

package module

import (
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// coinsBytes returns the C example, with a custom section of pad bytes
// appended when pad > 0 (ignored by every engine: a bigger module of the
// same game, whose transfer takes many requests).
func coinsBytes(t *testing.T, pad int) []byte {
	t.Helper()
	b, err := os.ReadFile("../examples/modules/c/coins.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if pad == 0 {
		return b
	}
	body := append([]byte{3, 'p', 'a', 'd'}, make([]byte, pad)...)
	b = append(b, 0) // a custom section
	for n := uint32(len(body)); ; n >>= 7 {
		if n < 0x80 {
			b = append(b, byte(n))
			break
		}
		b = append(b, byte(n)|0x80)
	}
	return append(b, body...)
}

// travelMatch runs a server of g and the given clients over a lossy
// simulated network for d of made-up time; it returns each client's
// error (nil if it played on) and the server's hashes by tick.
type travelMatch struct {
	t      *testing.T
	net    *transport.SimNetwork
	srv    *server.Server[Input]
	hashes map[uint32]uint64
	now    time.Time
}

func newTravelMatch(t *testing.T, g rewind.Game[Input], loss float64) *travelMatch {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(7, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: loss})
	sconn, _ := net.Listen("server")
	t.Cleanup(func() { sconn.Close() })
	m := &travelMatch{t: t, net: net, hashes: map[uint32]uint64{}, now: start}
	srv, err := server.New[Input](g, sconn, server.Config{
		OnTick: func(tick uint32, _ *world.World, h uint64) { m.hashes[tick] = h },
	})
	if err != nil {
		t.Fatal(err)
	}
	m.srv = srv
	return m
}

// join connects a client of g (a Remote, say) that takes the host's
// settings; its verified hashes are checked against the server's.
func (m *travelMatch) join(name string, g rewind.Game[Input], spectate bool, verified *int) *rewind.Session[Input] {
	var opts rewind.Options
	opts.Client.HostSettings, opts.Client.Spectate = true, spectate
	return m.connect(name, g, opts, verified)
}

// joinAs connects a client of g that plays its own game (no host
// settings).
func (m *travelMatch) joinAs(name string, g rewind.Game[Input], spectate bool, verified *int) *rewind.Session[Input] {
	var opts rewind.Options
	opts.Client.Spectate = spectate
	return m.connect(name, g, opts, verified)
}

// joinWith connects a client of g that takes the host's settings and
// rejoins with cookie.
func (m *travelMatch) joinWith(name string, g rewind.Game[Input], verified *int, cookie []byte) *rewind.Session[Input] {
	var opts rewind.Options
	opts.Client.HostSettings, opts.Client.Cookie = true, cookie
	return m.connect(name, g, opts, verified)
}

// connect connects a client of g with opts; its verified hashes are
// checked against the server's.
func (m *travelMatch) connect(name string, g rewind.Game[Input], opts rewind.Options, verified *int) *rewind.Session[Input] {
	c, err := m.net.Dial(name, "server")
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(func() { c.Close() })
	opts.Client.OnVerified = func(tick uint32, h uint64) {
		*verified++
		if m.hashes[tick] != h {
			m.t.Errorf("%s: tick %d: hash %016x, server %016x", name, tick, h, m.hashes[tick])
		}
	}
	s, err := rewind.Connect[Input](g, c, opts)
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(func() { s.Close() })
	s.SetInputFunc(func(tick uint32) Input { return InputOf([]byte{byte(tick / 20 * 7)}) })
	return s
}

// run advances the match by d, a millisecond at a time; errs[i] keeps
// the first error of sessions[i].
func (m *travelMatch) run(d time.Duration, sessions []*rewind.Session[Input], errs []error) {
	for end := m.now.Add(d); m.now.Before(end); {
		m.now = m.now.Add(time.Millisecond)
		m.net.Advance(m.now)
		if err := m.srv.Update(m.now); err != nil {
			m.t.Fatal(err)
		}
		for i, s := range sessions {
			if errs[i] == nil {
				errs[i] = s.Update(m.now)
			}
		}
	}
}

// TestModuleTravels: a server plays coins.wasm (made 300 KB bigger by a
// custom section, so that its transfer takes many requests) over a link
// with 5% loss; a player and a spectator given no module (Remotes) fetch
// it from the match, check its SHA-256 and play: every verified hash is
// the server's. A player whose cache holds the module (the first one's)
// fetches nothing. A player whose cap is under the module's size, and
// one served other bytes than the welcome names, are refused with errors
// that say so.
func TestModuleTravels(t *testing.T) {
	wasm := coinsBytes(t, 300<<10)
	host, err := Load("coins.wasm", wasm, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	m := newTravelMatch(t, host.Game(42), 0.05)
	dir := t.TempDir()
	cache := &Cache{Dir: dir}
	var nPlayer, nWatch, nCached int
	player := m.join("player", NewRemote(Config{}, cache), false, &nPlayer)
	watcher := m.join("watcher", NewRemote(Config{}, &Cache{}), true, &nWatch)
	small := m.join("small", NewRemote(Config{MaxBytes: 100 << 10}, nil), false, new(int))
	sessions := []*rewind.Session[Input]{player, watcher, small}
	errs := make([]error, 3)
	m.run(4*time.Second, sessions, errs)
	for i, name := range []string{"player", "watcher"} {
		st := sessions[i].Stats()
		if errs[i] != nil || st.ModuleBytes != uint64(len(wasm)) || st.Verified < 100 || st.Desyncs != 0 {
			t.Errorf("%s: %v; %d module bytes of %d in %d requests, verified %d, %d desyncs", name, errs[i], st.ModuleBytes, len(wasm), st.ModuleRequests, st.Verified, st.Desyncs)
		}
	}
	for i, name := range []string{"player", "watcher"} {
		if _, ok := sessions[i].Game().(*Game); !ok {
			t.Errorf("%s: the session plays %T, not the host's module's game", name, sessions[i].Game())
		}
	}
	if nPlayer < 100 || nWatch < 100 {
		t.Errorf("verified ticks checked: player %d, spectator %d", nPlayer, nWatch)
	}
	if errs[2] == nil || !errors.Is(errs[2], rewind.ErrRefused) || !strings.Contains(errs[2].Error(), "the cap is 102400") {
		t.Errorf("a player whose cap is under the module's size: %v", errs[2])
	}
	sum := host.Hash()
	if _, err := os.Stat(dir + "/" + hex.EncodeToString(sum[:]) + ".wasm"); err != nil {
		t.Errorf("the fetched module is not in the cache directory: %v", err)
	}
	// The cache has it now: a new player (a new Remote on the same
	// directory) loads it from there.
	cached := m.join("cached", NewRemote(Config{}, &Cache{Dir: dir}), false, &nCached)
	errs = []error{nil}
	m.run(2*time.Second, []*rewind.Session[Input]{cached}, errs)
	if st := cached.Stats(); errs[0] != nil || st.ModuleRequests != 0 || nCached < 50 {
		t.Errorf("a player whose cache has the module: %v; %d module requests, %d ticks checked", errs[0], st.ModuleRequests, nCached)
	}
}

// TestModuleWrongHash: a server (a fake one: the real one answers only
// for its own module's hash) that sends bytes that do not hash to its
// welcome's SHA-256 is refused, the error naming both hashes.
func TestModuleWrongHash(t *testing.T) {
	host, err := Load("coins.wasm", coinsBytes(t, 0), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	other := coinsBytes(t, 10)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(7, start)
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	c, _ := net.Dial("player", "server")
	defer c.Close()
	s, err := rewind.Connect[Input](NewRemote(Config{}, nil), c, rewind.Options{Client: rewind.ClientConfig{HostSettings: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buf := make([]byte, 2048)
	var serr error
	for now := start; serr == nil && now.Before(start.Add(time.Second)); now = now.Add(time.Millisecond) {
		net.Advance(now)
		serr = s.Update(now)
		for {
			n, from, err := sconn.Recv(buf)
			if err != nil {
				break
			}
			switch typ, _, _ := codec.Peek(buf[:n]); typ {
			case codec.TypeHello:
				w := codec.Welcome{Player: 0, Tag: 1, TickRate: 60, Transfer: 1, Settings: host.Game(1).MatchSettings()}
				sconn.Send(from, w.Append(nil))
			case codec.TypeModule:
				r, _, err := codec.ParseModuleRequest(buf[:n])
				for i := uint32(0); err == nil && i < codec.ModuleChunks(uint32(len(other))); i++ {
					if r.Mask&(1<<(i-r.First)) != 0 {
						off := int(i) * codec.ModuleChunkData
						m := codec.ModuleChunk{Tag: 1, Index: i, Total: uint32(len(other)), Data: other[off : off+codec.ModuleChunkLen(i, uint32(len(other)))]}
						sconn.Send(from, m.Append(nil))
					}
				}
			}
		}
	}
	if !errors.Is(serr, rewind.ErrRefused) || !strings.Contains(serr.Error(), "SHA-256") || !strings.Contains(serr.Error(), hex.EncodeToString(host.hash[:8])) {
		t.Errorf("bytes of another hash: %v", serr)
	}
}
