package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sent is one response as a counting proxy passed it on: its path,
// Content-Encoding, body bytes as sent (encoded) and when it started and
// ended since the proxy's start.
type sent struct {
	path, enc  string
	bytes      int64
	start, end time.Duration
}

// countingProxy is a reverse proxy in front of the demo's HTTP server
// that counts every response body's bytes as they go to the browser.
type countingProxy struct {
	url   string
	t0    time.Time
	mu    sync.Mutex
	sents []sent
}

// startKey is the context key of a request's start (since the proxy's).
type startKey struct{}

// countBody counts a body's bytes and notes the end of the response.
type countBody struct {
	io.ReadCloser
	p    *countingProxy
	s    sent
	once sync.Once
}

func (c *countBody) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	c.s.bytes += int64(n)
	return n, err
}

func (c *countBody) Close() error {
	c.once.Do(func() {
		c.s.end = time.Since(c.p.t0)
		c.p.mu.Lock()
		c.p.sents = append(c.p.sents, c.s)
		c.p.mu.Unlock()
	})
	return c.ReadCloser.Close()
}

// startProxy serves target (the demo's url=) through a countingProxy on
// a port of its own. Go's transport passes the browser's
// Accept-Encoding on and leaves the bodies encoded.
func startProxy(t testing.TB, target string) *countingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{t0: time.Now()}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		start := r.Request.Context().Value(startKey{}).(time.Duration)
		r.Body = &countBody{ReadCloser: r.Body, p: p, s: sent{path: r.Request.URL.Path, enc: r.Header.Get("Content-Encoding"), start: start}}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), startKey{}, time.Since(p.t0))))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	p.url = "http://" + ln.Addr().String() + "/"
	return p
}

// take returns the responses counted so far and forgets them.
func (p *countingProxy) take() []sent {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sents
	p.sents = nil
	sort.Slice(s, func(i, j int) bool { return s[i].start < s[j].start })
	return s
}

// BenchmarkPageFirstVisit measures what a first visit to the demo's page
// transfers over HTTP, as sent (a fresh browser profile, so nothing is
// cached; Chromium asks for zstd), file by file with when each download
// started and ended, whether the two programs downloaded at the same
// time, and what a second visit in the same browser transfers (the
// content-hashed files come from its cache). docs/benchmarks.md:
//
//	cd view && go test -run '^$' -bench PageFirstVisit -benchtime 1x -v ./e2e
func BenchmarkPageFirstVisit(b *testing.B) {
	d := startDemo(b)
	for b.Loop() {
		p := startProxy(b, d.url)
		br := chromium(b) // a fresh profile: an empty cache
		first := visit(b, br, p)
		second := visit(b, br, p)
		b.ReportMetric(float64(total(first)), "bytes-first-visit")
		b.ReportMetric(float64(total(second)), "bytes-second-visit")
		var wasm [][2]time.Duration
		for _, s := range first {
			b.Logf("first visit: %-28s %-4s %9d bytes, %6.0f–%6.0f ms", s.path, s.enc, s.bytes, ms(s.start), ms(s.end))
			if strings.HasSuffix(s.path, ".wasm") {
				wasm = append(wasm, [2]time.Duration{s.start, s.end})
			}
		}
		for _, s := range second {
			b.Logf("second visit: %-28s %-4s %9d bytes", s.path, s.enc, s.bytes)
		}
		if len(wasm) == 2 {
			b.Logf("the two wasm downloads overlap: %v", wasm[1][0] < wasm[0][1] && wasm[0][0] < wasm[1][1])
		}
	}
}

// visit opens p's page in a new tab of br, waits for its first verified
// tick and returns what the proxy sent meanwhile.
func visit(b *testing.B, br context.Context, p *countingProxy) []sent {
	b.Helper()
	p.take()
	ctx, cancel := chromedp.NewContext(br)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(p.url+"?until-tick=30")); err != nil {
		b.Fatal(err)
	}
	waitStatus(b, ctx, "the page verifies its first tick", time.Minute, func(st map[string]string) bool { return st["verified_tick"] != "0" })
	return p.take()
}

func total(s []sent) (n int64) {
	for _, x := range s {
		n += x.bytes
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
