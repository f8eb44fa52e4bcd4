package attack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"time"

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
