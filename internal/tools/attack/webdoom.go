package attack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/webdoom"
)

// DemoTraces: 600 three-byte demos, each with a full verify trace
// (200,000 entries), posted to the WebDoom demo store with its default
// settings. Before issue 15 the traces were not counted in the 128 MiB
// quota: the process grew from 15 MB to 917 MB, never freed.
func DemoTraces(ctx context.Context, cfg Config) Result {
	return demoTraces(ctx, cfg, "demo_traces", webdoom.DefaultServerConfig())
}

// DemoTracesQuota is DemoTraces with the per-address upload rate lifted,
// so that only the store's quota bounds it.
func DemoTracesQuota(ctx context.Context, cfg Config) Result {
	scfg := webdoom.DefaultServerConfig()
	scfg.DemoUploadBurst = 1 << 20
	return demoTraces(ctx, cfg, "demo_traces_quota", scfg)
}

func demoTraces(ctx context.Context, cfg Config, name string, scfg webdoom.ServerConfig) Result {
	r := Result{Name: name}
	srv := webdoom.NewServer(scfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.Err = err
		return r
	}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	demos := pick(cfg, 60, 600)
	entries := pick(cfg, 50_000, 200_000)
	var tb bytes.Buffer
	tb.WriteString(`{"tics":1,"trace":[`)
	for i := range entries {
		if i > 0 {
			tb.WriteByte(',')
		}
		tb.WriteString(strconv.Itoa(1_000_000 + i))
	}
	tb.WriteString(`]}`)
	trace := tb.Bytes()
	client := &http.Client{Timeout: 20 * time.Second}
	post := func(url string, body []byte) int {
		resp, err := client.Post(url, "application/octet-stream", bytes.NewReader(body))
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var stored, limited int
	start := time.Now()
	for i := range demos {
		if ctx.Err() != nil {
			break
		}
		demo := []byte{byte(i), byte(i >> 8), 7}
		sum := sha256.Sum256(demo)
		id := hex.EncodeToString(sum[:])
		switch post(base+"/api/demos", demo) {
		case http.StatusTooManyRequests:
			limited++
			continue
		}
		switch post(base+"/api/demos/"+id+"/verify", trace) {
		case http.StatusOK:
			stored++
		case http.StatusTooManyRequests:
			limited++
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapMB := float64(ms.HeapInuse) / (1 << 20)
	r.add("demos", demos)
	r.add("trace_entries", entries)
	r.add("traces_stored", stored)
	r.add("uploads_refused_429", limited)
	r.add("heap_inuse_mb", heapMB)
	r.add("seconds", time.Since(start).Seconds())
	r.Held = heapMB < 300
	return r
}

// LobbyIdle: issue 30's item 13. Four WebSockets take the four seats of
// a WebDoom lobby and say nothing (they read what it sends); a player
// then tries to take a seat, and tries again every 100 ms. Before, the
// lobby stayed full for as long as the four stayed. The idle limit
// (webdoom.Config.LobbyIdle, `rewind webdoom --lobby-idle`, default 10
// minutes) is cut to seconds here. It holds if the player was refused
// at first (the four held the lobby) and seated within the limit and 5
// seconds more.
func LobbyIdle(ctx context.Context, cfg Config) Result {
	r := Result{Name: "lobby_idle"}
	scfg := webdoom.DefaultServerConfig()
	idle := pick(cfg, time.Second, 5*time.Second)
	scfg.LobbyIdle = idle
	if cfg.Undefended {
		scfg.LobbyIdle = -1
	}
	srv := webdoom.NewServer(scfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.Err = err
		return r
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	defer func() {
		srv.Close()
		<-done
	}()
	url := "ws://" + ln.Addr().String() + "/ws/lobby"
	first := func() (*websocket.Conn, string, error) { return lobbyFirst(ctx, url) }
	var silent []*websocket.Conn
	defer func() {
		for _, c := range silent {
			c.CloseNow()
		}
	}()
	for range 4 {
		c, t, err := first()
		if err != nil || t != "welcome" {
			r.Err = fmt.Errorf("a squatter: %v %q", err, t)
			return r
		}
		silent = append(silent, c)
		go func() { // reads, never writes
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	start := time.Now()
	refusedFirst, seated, tries := false, false, 0
	for deadline := start.Add(idle + 5*time.Second); time.Now().Before(deadline) && ctx.Err() == nil; tries++ {
		c, t, err := first()
		if err == nil {
			c.CloseNow()
		}
		if t == "welcome" {
			seated = true
			break
		}
		refusedFirst = refusedFirst || (tries == 0 && t == "full")
		sleepCtx(ctx, 100*time.Millisecond)
	}
	r.add("squatters", 4)
	r.add("lobby_idle_s", idle.Seconds())
	r.add("refused_at_first", refusedFirst)
	r.add("tries", tries)
	r.add("seated", seated)
	r.add("seated_after_s", time.Since(start).Seconds())
	r.add("seats_freed_idle", srv.Stats().Refusals[webdoom.RefuseLobbyIdle])
	r.Held = refusedFirst && seated
	return r
}

// lobbyFirst connects to a WebDoom lobby at url and returns the
// connection and the type (t) of the lobby's first message.
func lobbyFirst(ctx context.Context, url string) (*websocket.Conn, string, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, "", err
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		c.CloseNow()
		return nil, "", err
	}
	var m struct {
		T string `json:"t"`
	}
	_ = json.Unmarshal(b, &m)
	return c, m.T, nil
}
