package gateway_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// match is a walkers Host with a gateway beside it, served over
// httptest on 127.0.0.1.
type match struct {
	gw     *gateway.Gateway[walkers.Input]
	host   *rewind.Host[walkers.Input]
	srv    *httptest.Server
	url    string
	hashes *testutil.HostHashes
	stop   func()
}

// destination is walkers' destination input.
func destination(x, y int32) walkers.Input { return walkers.Input{X: x, Y: y, Move: true} }

// newMatch starts a walkers match for at most maxPlayers players, its
// gateway configured by cfg (Destination is set), and extra members (UDP)
// beside the gateway's Conn.
func newMatch(t testing.TB, maxPlayers int, cfg gateway.Config[walkers.Input], extra ...transport.Conn) *match {
	t.Helper()
	return newMatchServer(t, rewind.ServerConfig{MaxPlayers: maxPlayers, StartPlayers: 1}, cfg, extra...)
}

// newMatchServer is newMatch with the match server's configuration (its
// Schema and OnTick are set here).
func newMatchServer(t testing.TB, scfg rewind.ServerConfig, cfg gateway.Config[walkers.Input], extra ...transport.Conn) *match {
	t.Helper()
	m, stopCore := newMatchCore(t, scfg, cfg, extra...)
	srv := httptest.NewServer(m.gw)
	m.srv, m.url = srv, "ws"+strings.TrimPrefix(srv.URL, "http")+"/"
	var once sync.Once
	m.stop = func() {
		once.Do(func() {
			srv.CloseClientConnections()
			_ = m.gw.Close()
			srv.Close()
			stopCore()
		})
	}
	t.Cleanup(m.stop)
	return m
}

// newMatchCore starts the walkers Host and its gateway, not yet served
// over HTTP; stop stops the Host.
func newMatchCore(t testing.TB, scfg rewind.ServerConfig, cfg gateway.Config[walkers.Input], extra ...transport.Conn) (m *match, stop func()) {
	t.Helper()
	cfg.Destination, cfg.DestinationBound = destination, walkers.HalfField
	g := walkers.New()
	gw, err := gateway.New[walkers.Input](g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hh := testutil.NewHostHashes()
	var conn transport.Conn = gw.Conn()
	if len(extra) > 0 {
		if conn, err = transport.NewMulti(append(extra, gw.Conn())...); err != nil {
			t.Fatal(err)
		}
	}
	scfg.Schema, scfg.OnTick = gw.Schema(), hh.OnTick
	host, err := rewind.NewHost[walkers.Input](g, conn, rewind.HostOptions{Server: scfg})
	if err != nil {
		t.Fatal(err)
	}
	stopHost := testutil.RunHost(context.Background(), t, host)
	return &match{gw: gw, host: host, hashes: hh}, func() {
		stopHost()
		_ = host.Close()
	}
}

// msg is a server message, decoded.
type msg struct {
	Type    string          `json:"type"`
	Version int             `json:"protocolVersion"`
	Payload json.RawMessage `json:"payload"`
}

type initialMsg struct {
	SnapshotTick    uint32  `json:"snapshotTick"`
	PlayerID        int     `json:"playerId"`
	TickDurationMs  float64 `json:"tickDurationMs"`
	TickRate        int     `json:"tickRate"`
	InputDelayTicks int     `json:"inputDelayTicks"`
	Compatibility   string  `json:"compatibility"`
	LayoutHash      string  `json:"layoutHash"`
	StateHash       string  `json:"stateHash"`
	Players         []int   `json:"players"`
	Inputs          []struct {
		PlayerID int           `json:"playerId"`
		Input    walkers.Input `json:"input"`
	} `json:"inputs"`
	State       json.RawMessage `json:"state"`
	World       string          `json:"world"`
	ResumeToken string          `json:"resumeToken"`
}

type tickMsg struct {
	TickID   uint32 `json:"tickId"`
	Commands []struct {
		PlayerID int           `json:"playerId"`
		Sequence uint64        `json:"sequence"`
		Input    walkers.Input `json:"input"`
	} `json:"commands"`
	Events []struct {
		PlayerID int    `json:"playerId"`
		Kind     string `json:"kind"`
	} `json:"events"`
	StateHash string `json:"stateHash"`
}

type errorMsg struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// jsonClient is a JSON client in Go: it simulates walkers itself from
// initial_state's world and checks every tick's stateHash.
type jsonClient struct {
	t       testing.TB
	ws      *websocket.Conn
	g       *walkers.Game
	w       *world.World
	init    initialMsg
	tick    uint32
	inputs  []walkers.Input
	present []bool
	seq     uint64
	checked int               // ticks whose hash matched
	hashes  map[uint32]uint64 // the verified hash of every tick checked
	errors  []errorMsg
	bytesIn int
}

// dial connects to the match's gateway.
func dial(ctx context.Context, t testing.TB, url string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}

func newJSONClient(t testing.TB, ws *websocket.Conn) *jsonClient {
	g := walkers.New()
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		t.Fatal(err)
	}
	w, err := world.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return &jsonClient{t: t, ws: ws, g: g, w: w, inputs: make([]walkers.Input, rewind.MaxPlayers),
		present: make([]bool, rewind.MaxPlayers), hashes: map[uint32]uint64{}}
}

// read returns the next server message.
func (c *jsonClient) read(ctx context.Context) (msg, error) {
	_, b, err := c.ws.Read(ctx)
	if err != nil {
		return msg{}, err
	}
	c.bytesIn += len(b)
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("server message %q: %v", b, err)
	}
	if m.Version != 2 {
		return m, fmt.Errorf("server message of version %d", m.Version)
	}
	return m, nil
}

// send sends a client message of type typ with payload.
func (c *jsonClient) send(ctx context.Context, typ string, payload any) error {
	b, err := json.Marshal(map[string]any{"protocolVersion": 2, "type": typ, "payload": payload})
	if err != nil {
		return err
	}
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// sendRaw sends b as one text message.
func (c *jsonClient) sendRaw(ctx context.Context, b string) error {
	return c.ws.Write(ctx, websocket.MessageText, []byte(b))
}

// goTo sends a destination_input (metres).
func (c *jsonClient) goTo(ctx context.Context, x, y float64) error {
	c.seq++
	return c.send(ctx, "destination_input", map[string]any{"sequence": c.seq, "target": map[string]any{"x": x, "y": y}})
}

// next reads and applies messages until one of type want (applied too),
// keeping errors; it fails on a hash that differs.
func (c *jsonClient) next(ctx context.Context, want string) (msg, error) {
	for {
		m, err := c.read(ctx)
		if err != nil {
			return m, err
		}
		if err := c.apply(m); err != nil {
			return m, err
		}
		if m.Type == want {
			return m, nil
		}
	}
}

// apply takes one server message.
func (c *jsonClient) apply(m msg) error {
	switch m.Type {
	case "initial_state":
		var in initialMsg
		if err := json.Unmarshal(m.Payload, &in); err != nil {
			return err
		}
		b, err := base64.StdEncoding.DecodeString(in.World)
		if err != nil {
			return err
		}
		if err := c.w.DecodeWorld(b); err != nil {
			return err
		}
		if got := fmt.Sprintf("%016x", c.w.Hash()); got != in.StateHash {
			return fmt.Errorf("initial_state world hashes %s, stateHash %s", got, in.StateHash)
		}
		c.init, c.tick = in, in.SnapshotTick
		clear(c.inputs)
		clear(c.present)
		for _, p := range in.Players {
			c.present[p] = true
		}
		for _, x := range in.Inputs {
			c.inputs[x.PlayerID] = x.Input
		}
	case "tick":
		var tk tickMsg
		if err := json.Unmarshal(m.Payload, &tk); err != nil {
			return err
		}
		if c.init.ResumeToken == "" {
			return fmt.Errorf("tick %d before initial_state", tk.TickID)
		}
		if tk.TickID != c.tick+1 {
			return fmt.Errorf("tick %d after tick %d", tk.TickID, c.tick)
		}
		t := rewind.Tick[walkers.Input]{Number: tk.TickID, Inputs: c.inputs, Present: c.present}
		for _, e := range tk.Events {
			kind := rewind.Join
			c.present[e.PlayerID] = true
			if e.Kind == "leave" {
				kind = rewind.Leave
				c.present[e.PlayerID] = false
			}
			c.inputs[e.PlayerID] = walkers.Input{}
			t.Events = append(t.Events, rewind.Event{Kind: kind, Player: rewind.PlayerID(e.PlayerID)})
		}
		for _, cm := range tk.Commands {
			c.inputs[cm.PlayerID] = cm.Input
		}
		c.g.Step(c.w, &t)
		c.tick = tk.TickID
		h := c.w.Hash()
		if got := fmt.Sprintf("%016x", h); got != tk.StateHash {
			return fmt.Errorf("tick %d: our hash %s, stateHash %s", tk.TickID, got, tk.StateHash)
		}
		c.checked++
		c.hashes[tk.TickID] = h
	case "error":
		var e errorMsg
		if err := json.Unmarshal(m.Payload, &e); err != nil {
			return err
		}
		c.errors = append(c.errors, e)
	default:
		return fmt.Errorf("unknown message type %q", m.Type)
	}
	return nil
}

// expectError reads until an error message and returns its code.
func (c *jsonClient) expectError(ctx context.Context) string {
	c.t.Helper()
	n := len(c.errors)
	for len(c.errors) == n {
		m, err := c.read(ctx)
		if err != nil {
			c.t.Fatalf("waiting for an error: %v", err)
		}
		if err := c.apply(m); err != nil {
			c.t.Fatal(err)
		}
	}
	return c.errors[len(c.errors)-1].Code
}

// hexHash parses a stateHash.
func hexHash(s string) uint64 {
	v, _ := strconv.ParseUint(s, 16, 64)
	return v
}

// timeout returns a context that ends after d.
func timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
