package console

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// ipLike matches anything that looks like an IPv4 address.
var ipLike = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+`)

// TestConsoleHidesHosts is issue 43's item 5 (the console showed a room
// host's raw address, a person's for a tab host, to anyone): without the
// token no address at all is shown, hosts hashed like members; with it
// (?addrs=1) they are.
func TestConsoleHidesHosts(t *testing.T) {
	src := &fakeSource{snap: Snapshot{Source: "relay", Rooms: []Room{
		{Code: "AAAAAA", Hosted: "host", HostAddr: "127.0.0.1", Members: []Player{{ID: "p1", Addr: "127.0.0.9:5555"}}},
		{Code: "BBBBBB", Hosted: "match server", HostAddr: "127.0.70.2"}}}}
	c := New(Options{Provider: src, Token: []byte(testToken)})
	get := func(url, token string) (int, string) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", url, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		c.serveState(w, r)
		return w.Code, w.Body.String()
	}
	code, body := get(Path+"/api/state", "")
	if code != 200 || ipLike.MatchString(body) || !strings.Contains(body, `"hosted":"host #`) || !strings.Contains(body, `"hosted":"match server #`) {
		t.Errorf("without the token: %d %s", code, body)
	}
	code, body = get(Path+"/api/state?addrs=1", testToken)
	if code != 200 || !strings.Contains(body, `"hosted":"host 127.0.0.1"`) || !strings.Contains(body, `"hosted":"match server 127.0.70.2"`) {
		t.Errorf("with the token: %d %s", code, body)
	}
	h := c.Hub()
	s := h.Subscribe(false)
	defer h.Unsubscribe(s)
	h.Step(time.Unix(1, 0))
	for range 2 {
		if b := string(<-s.C); ipLike.MatchString(b) {
			t.Errorf("event stream without the token shows an address: %s", b)
		}
	}
}

// TestConsoleStateCached is issue 43's item 5 in made-up time: 16
// addresses asking for /console/api/state 50 times each within one
// Interval poll the Provider (the relay's lock) once, not 800 times;
// each address gets stateBurst answers, then 429 until its bucket
// refills; the next Interval polls once more.
func TestConsoleStateCached(t *testing.T) {
	src := &fakeSource{snap: Snapshot{Source: "relay", Rooms: []Room{{Code: "AAAAAA"}}}}
	c := New(Options{Provider: src})
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	ask := func(addr string) int {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", Path+"/api/state", nil)
		r.RemoteAddr = addr + ":40000"
		c.serveState(w, r)
		return w.Code
	}
	round := func() (ok, limited int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for a := range 16 {
			wg.Go(func() {
				for range 50 {
					code := ask(fmt.Sprintf("10.0.0.%d", a+1))
					mu.Lock()
					if code == 200 {
						ok++
					} else if code == http.StatusTooManyRequests {
						limited++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return ok, limited
	}
	ok, limited := round()
	if src.calls != 1 || ok != 16*int(stateBurst) || limited != 16*50-ok {
		t.Fatalf("one interval: %d polls, %d answered, %d refused; want 1, %d, the rest", src.calls, ok, limited, 16*int(stateBurst))
	}
	now = now.Add(c.opts.Interval)
	ok, _ = round()
	if want := 16 * int(stateRate*c.opts.Interval.Seconds()); src.calls != 2 || ok != want { // the tokens of a quarter second
		t.Fatalf("the next interval: %d polls in all, %d answered; want 2 and %d", src.calls, ok, want)
	}
}

// TestConsoleStreamCap is issue 43's item 5: event streams are capped in
// all (MaxStreams, default 64) and per address (4) without the token; a
// request with the token still gets one once they are taken. (Before, 2,000
// streams from 20 addresses took 4,013 goroutines.)
func TestConsoleStreamCap(t *testing.T) {
	src := &fakeSource{snap: Snapshot{Source: "relay"}}
	c := New(Options{Provider: src, Token: []byte(testToken)})
	mux := http.NewServeMux()
	c.Mount(mux)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = r.Header.Get("X-From") + ":1" // the test's addresses
		mux.ServeHTTP(w, r)
	}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(from, token string) int {
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+Path+"/api/events", nil)
		req.Header.Set("X-From", from)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			resp.Body.Close()
		}
		return resp.StatusCode
	}
	opened := 0
	for i := range 100 { // 20 addresses, 5 each
		if open(fmt.Sprintf("10.1.0.%d", i%20+1), "") == 200 {
			opened++
		}
	}
	if opened != 4*16 { // 4 per address until the 64 are taken
		t.Fatalf("%d streams opened without the token, want %d", opened, 64)
	}
	if code := open("10.1.9.9", ""); code != http.StatusServiceUnavailable {
		t.Fatalf("a stream from a new address with all taken: %d, want 503", code)
	}
	if code := open("10.1.9.9", testToken); code != 200 {
		t.Fatalf("the operator's stream with all taken: %d, want 200", code)
	}
}
