package attack

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/netutil"
)

// jsonTarget is a walkers match whose players come through the JSON
// gateway, served as `rewind serve --game walkers --json` serves it (the
// HTTP limits of internal/netutil) on 127.0.0.1.
type jsonTarget[I any] struct {
	gw     *gateway.Gateway[I]
	host   *rewind.Host[I]
	hs     *http.Server
	url    string
	cancel context.CancelFunc
	done   chan struct{}
}

func startJSONTarget[I any](g rewind.Game[I], scfg rewind.ServerConfig, gcfg gateway.Config[I]) (*jsonTarget[I], error) {
	gw, err := gateway.New(g, gcfg)
	if err != nil {
		return nil, err
	}
	scfg.Schema = gw.Schema()
	h, err := rewind.NewHost(g, gw.Conn(), rewind.HostOptions{Server: scfg})
	if err != nil {
		gw.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		gw.Close()
		h.Close()
		return nil, err
	}
	lim := netutil.HTTPLimits{}
	t := &jsonTarget[I]{gw: gw, host: h, hs: lim.Server(gw), url: "ws://" + ln.Addr().String() + "/", done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	go func() { _ = h.Run(ctx) }()
	go func() {
		defer close(t.done)
		_ = t.hs.Serve(lim.Listener(ln))
	}()
	return t, nil
}

func (t *jsonTarget[I]) stop() {
	t.gw.Close()
	t.hs.Close()
	<-t.done
	t.cancel()
	t.host.Close()
}

// jsonFirst dials the gateway from ip and returns the socket and the type
// of the server's first message (initial_state, or error's code).
func jsonFirst(ctx context.Context, url string, ip net.IP) (*websocket.Conn, string, error) {
	c, err := dialFrom(ctx, url, ip)
	if err != nil {
		return nil, "", err
	}
	c.SetReadLimit(1 << 22)
	_, b, err := c.Read(ctx)
	if err != nil {
		c.CloseNow()
		return nil, "", err
	}
	var m struct {
		Type    string `json:"type"`
		Payload struct {
			Code string `json:"code"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		c.CloseNow()
		return nil, "", err
	}
	if m.Type == "error" {
		return c, "error:" + m.Payload.Code, nil
	}
	return c, m.Type, nil
}

// JSONPerAddress: issue 30's item 5. One address opens 16 JSON gateway
// sockets on a match of 16 players with MaxPlayersPerIP 2; then a player
// from another address joins. Before, the cap counted UDP players only:
// the 16 took every slot and the player was refused full. It holds if
// the address got no more than its cap and the player joined.
func JSONPerAddress(ctx context.Context, cfg Config) Result {
	r := Result{Name: "json_per_address"}
	perIP := 2
	if cfg.Undefended {
		perIP = 0
	}
	t, err := startJSONTarget(walkers.New(), rewind.ServerConfig{MaxPlayers: 16, StartPlayers: 1, MaxPlayersPerIP: perIP}, gateway.Config[walkers.Input]{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	const sockets = 16
	var mu sync.Mutex
	firsts := map[string]int{}
	var conns []*websocket.Conn
	var wg sync.WaitGroup
	for range sockets {
		wg.Go(func() {
			c, first, err := jsonFirst(ctx, t.url, net.IPv4(127, 0, 9, 1))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				first = "dial_failed"
			} else {
				conns = append(conns, c)
			}
			firsts[first]++
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			c.CloseNow()
		}
	}()
	c, first, err := jsonFirst(ctx, t.url, net.IPv4(127, 0, 9, 2))
	if err == nil {
		c.CloseNow()
	}
	joined := err == nil && first == "initial_state"
	r.add("sockets_from_one_address", sockets)
	r.add("max_players_per_ip", perIP)
	r.add("admitted", firsts["initial_state"])
	r.add("refused_full", firsts["error:"+gateway.CodeFull])
	r.add("player_from_another_address_joined", joined)
	r.Held = firsts["initial_state"] <= 2 && joined
	return r
}

// JSONRefusalLogs: issue 30's item 7. Sockets refused full by a JSON
// gateway, one after the other. Before, each wrote an INFO line (2,986
// lines for 3,000 sockets), while docs/security.md promises one line per
// reason per second. It holds if every socket was refused and the
// gateway wrote no more lines than one a second, and one more, meanwhile.
func JSONRefusalLogs(ctx context.Context, cfg Config) Result {
	r := Result{Name: "json_refusal_logs"}
	var lines atomic.Int64
	t, err := startJSONTarget(walkers.New(), rewind.ServerConfig{MaxPlayers: 1, StartPlayers: 1},
		gateway.Config[walkers.Input]{Log: slog.New(lineCounter{level: slog.LevelInfo, n: &lines})})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	c, first, err := jsonFirst(ctx, t.url, net.IPv4(127, 0, 0, 1))
	if err != nil || first != "initial_state" {
		r.Err = fmt.Errorf("the match's player: %v %s", err, first)
		return r
	}
	defer c.CloseNow()
	n := pick(cfg, 300, 3000)
	lines0 := lines.Load()
	full0 := t.gw.Stats().Full
	start := time.Now()
	var refused, next atomic.Int64
	var wg sync.WaitGroup
	for range 32 { // 32 sockets at a time: each waits ResumeWait (250 ms) for its answer
		wg.Go(func() {
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				c, first, err := jsonFirst(ctx, t.url, net.IPv4(127, 0, 0, 1))
				if err == nil {
					c.CloseNow()
					if first == "error:"+gateway.CodeFull {
						refused.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	got := lines.Load() - lines0
	r.add("sockets", n)
	r.add("refused_full", refused.Load())
	r.add("counted_full", t.gw.Stats().Full-full0)
	r.add("seconds", secs)
	r.add("log_lines", got)
	r.Held = refused.Load() == int64(n) && float64(got) <= math.Ceil(secs)+1
	return r
}
