package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/internal/tools/webdoomclient"
)

func TestWebDoomSettings(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	set, err := webDoomSettings(nil, getenv, io.Discard)
	if err != nil || set.addr != "0.0.0.0:8666" || set.metrics != "" || len(set.warnings) != 0 {
		t.Fatalf("defaults: %+v %v", set, err)
	}
	env["DOOM_PORT"], env["DOOM_HOST"], env["WEBDOOM_JOIN_TIMEOUT"], env["WEBDOOM_RATE_CAP"] = "9000", "127.0.0.1", "5000", "77"
	set, err = webDoomSettings(nil, getenv, io.Discard)
	if err != nil || set.addr != "127.0.0.1:9000" || set.cfg.JoinTimeout != 5*time.Second || set.cfg.RateCap != 77 || len(set.warnings) != 0 {
		t.Fatalf("env: %+v %v", set, err)
	}
	set, err = webDoomSettings([]string{"--port", "7000", "--host", "::1", "--dir", "/x", "--quiet", "--max-history", "100", "--metrics-http", "127.0.0.1:0"}, getenv, io.Discard)
	if err != nil || set.addr != "[::1]:7000" || set.cfg.Dir != "/x" || !set.quiet || set.cfg.MaxHistoryTics != 100 || set.metrics != "127.0.0.1:0" {
		t.Fatalf("flags: %+v %v", set, err)
	}
	if _, err := webDoomSettings([]string{"--port", "70000"}, getenv, io.Discard); err == nil {
		t.Fatal("port out of range accepted")
	}
	// Bad values keep the defaults, as in WebDoom, and are reported.
	env["DOOM_PORT"], env["WEBDOOM_RATE_CAP"], env["WEBDOOM_MAX_CONNS"] = "abc", "-5", "0"
	set, err = webDoomSettings(nil, getenv, io.Discard)
	if err != nil || set.addr != "127.0.0.1:8666" || set.cfg.RateCap != 300 {
		t.Fatalf("bad env: %+v %v", set, err)
	}
	got := fmt.Sprint(set.warnings)
	for _, want := range []string{"{DOOM_PORT abc 8666}", "{WEBDOOM_RATE_CAP -5 300}", "{WEBDOOM_MAX_CONNS 0 "} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %s lack %s", got, want)
		}
	}
}

// TestWebDoomMetrics runs `rewind webdoom --metrics-http` in-process and
// scrapes /metrics: every rewind_webdoom_* name of the WebDoom relay is
// there, with its type, a reason label on drops and refusals, and values
// that follow what happened (one open lobby socket, one refused upgrade).
func TestWebDoomMetrics(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveWebDoom(ctx, []string{"--host", "127.0.0.1", "--port", "0", "--metrics-http", "127.0.0.1:0"},
			func(string) string { return "" }, outW, errW)
		outW.Close()
		errW.Close()
	}()
	metricsAddr := make(chan string, 1)
	drained := make(chan struct{})
	go func() { // the log: find the metrics address, then drain
		defer close(drained)
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			if m := regexp.MustCompile(`msg=http addr=(\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				metricsAddr <- m[1]
			}
		}
	}()
	sc := bufio.NewScanner(outR)
	if !sc.Scan() {
		t.Fatalf("no listening line: %v", <-done)
	}
	m := regexp.MustCompile(`^rewind webdoom: listening on http://(\S+)/ \(lobby ws://\S+/ws/lobby, dir \(none: app routes 404\)\)$`).FindStringSubmatch(sc.Text())
	if m == nil {
		t.Fatalf("listening line %q", sc.Text())
	}
	game, addr := m[1], <-metricsAddr
	go io.Copy(io.Discard, outR)

	lobby, err := webdoomclient.Dial(ctx, "ws://"+game, "/ws/lobby")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lobby.ReadLobby(ctx); err != nil { // the welcome
		t.Fatal(err)
	}
	if bad, err := webdoomclient.Dial(ctx, "ws://"+game, "/ws/nowhere"); err == nil {
		bad.CloseNow()
		t.Fatal("an upgrade on a bad path was accepted")
	}
	big, err := webdoomclient.Dial(ctx, "ws://"+game, "/ws/lobby")
	if err != nil {
		t.Fatal(err)
	}
	big.SendJSON(ctx, strings.Repeat(" ", 4096)) // over the lobby's limit: dropped
	for {
		if _, _, err := big.Read(ctx); err != nil {
			if webdoomclient.CloseStatus(err) != 1009 {
				t.Fatalf("oversize lobby message: %v", err)
			}
			break
		}
	}
	var text string
	scrape := func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		text = string(body)
		return strings.Contains(text, "rewind_webdoom_connections 1\n") && strings.Contains(text, "rewind_webdoom_drops_total")
	}
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	testutil.WaitUntil(wait, t, "the drop and the connection count in /metrics", scrape)
	for _, want := range []string{
		"# TYPE rewind_webdoom_sessions_total counter\nrewind_webdoom_sessions_total 0\n",
		"# TYPE rewind_webdoom_sessions_ended_total counter\n",
		"# TYPE rewind_webdoom_seals_total counter\n",
		"# TYPE rewind_webdoom_forced_seals_total counter\n",
		"# TYPE rewind_webdoom_fabrications_total counter\n",
		"# TYPE rewind_webdoom_refusals_total counter\nrewind_webdoom_refusals_total{reason=\"bad upgrade path\"} 1\n",
		"# TYPE rewind_webdoom_players gauge\n",
		"# TYPE rewind_webdoom_spectators gauge\n",
		"# TYPE rewind_webdoom_connections gauge\nrewind_webdoom_connections 1\n",
		"# TYPE rewind_webdoom_frontier_tic gauge\n",
		"# HELP rewind_webdoom_drops_total Players or connections dropped, by reason.\n# TYPE rewind_webdoom_drops_total counter\nrewind_webdoom_drops_total{reason=\"oversize message\"} 1\n",
		"# TYPE go_goroutines gauge\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	lobby.CloseNow()
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("webdoom: %v", err)
	}
	<-drained
}
