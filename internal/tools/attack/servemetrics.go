package attack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ServeFunc is `rewind serve` run in-process: it serves with args,
// printing its key=value lines on stdout, until ctx ends.
type ServeFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// ServeJSONMetrics returns issue 30's item 8 as an attack on serve, the
// command's own (cmd/rewind hands it in: `rewind-bench abuse` runs it).
// `rewind serve --game walkers --json 127.0.0.1:0 --http 127.0.0.1:0`
// panicked at start-up (the host's Conn is the gateway's, not a UDP
// server), with --udp and with --game sand too. It holds if each of the
// three starts, serves /metrics with rewind_tick, and stops without an
// error.
func ServeJSONMetrics(serve ServeFunc) Attack {
	return Attack{Name: "serve_json_metrics", Run: func(ctx context.Context, cfg Config) Result {
		r := Result{Name: "serve_json_metrics"}
		runs := [][]string{
			{"--game", "walkers", "--json", "127.0.0.1:0", "--http", "127.0.0.1:0"},
			{"--game", "walkers", "--json", "127.0.0.1:0", "--udp", "127.0.0.1:0", "--http", "127.0.0.1:0"},
			{"--game", "sand", "--grid", "32", "--json", "127.0.0.1:0", "--http", "127.0.0.1:0"},
		}
		served := 0
		for _, args := range runs {
			if err := serveMetrics(ctx, serve, append(args, "--status", "0")); err != nil {
				r.add("broke", strings.Join(args, " ")+": "+err.Error())
				continue
			}
			served++
		}
		r.add("commands", len(runs))
		r.add("served_metrics", served)
		r.Held = served == len(runs)
		return r
	}}
}

// serveMetrics runs serve with args until it prints its http= line, reads
// its /metrics, and stops it; a panic of serve is an error.
func serveMetrics(ctx context.Context, serve ServeFunc, args []string) (err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		defer pw.Close()
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- serve(ctx, args, pw, io.Discard)
	}()
	defer func() {
		cancel()
		if e := <-done; e != nil {
			err = e // serve's own error, or its panic, says more
		}
	}()
	addr := ""
	sc := bufio.NewScanner(pr)
	for addr == "" && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "http="); ok {
			addr = v
		}
	}
	if addr == "" {
		return fmt.Errorf("no http= line")
	}
	go io.Copy(io.Discard, pr)
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), "rewind_tick ") {
		return fmt.Errorf("/metrics without rewind_tick")
	}
	return nil
}
