package attack

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
)

// ConsoleStateFlood: issue 43's item 5. A relay's console (its rooms as
// `rewind relay --console` lists them: each poll takes the relay's
// lock) with a hosted room, and 16 clients asking /console/api/state as
// fast as they are answered for 5 s (short: 1 s), without the token.
// Before, each request polled the relay under its lock (issue 43: 272 a
// second, 68 % CPU) and showed the host's address. It holds if the relay
// was polled at most once per interval (250 ms) and no answer shows an
// address.
func ConsoleStateFlood(ctx context.Context, cfg Config) Result {
	r := Result{Name: "console_state_flood"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: t.url})
	if err != nil {
		r.Err = err
		return r
	}
	defer host.Close()
	var polls atomic.Int64
	c := console.New(console.Options{Provider: console.ProviderFunc(func(time.Time) console.Snapshot {
		polls.Add(1)
		s := console.Snapshot{Source: "relay"}
		for _, rm := range t.rooms.Rooms() {
			s.Rooms = append(s.Rooms, console.Room{Code: rm.Code, Players: rm.Players, Hosted: "host", HostAddr: rm.Host})
		}
		return s
	})})
	mux := http.NewServeMux()
	c.Mount(mux)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	dur := pick(cfg, time.Second, 5*time.Second)
	fctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var answered, limited atomic.Int64
	var shown atomic.Bool
	ipLike := regexp.MustCompile(`\d+\.\d+\.\d+\.\d+`)
	var wg sync.WaitGroup
	start := time.Now()
	for range 16 {
		wg.Go(func() {
			for fctx.Err() == nil {
				req, _ := http.NewRequestWithContext(fctx, "GET", ts.URL+console.Path+"/api/state", nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					answered.Add(1)
					shown.Store(shown.Load() || ipLike.Match(b))
				case http.StatusTooManyRequests:
					limited.Add(1)
				}
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	bound := int64(secs/0.25) + 2
	r.add("seconds", secs)
	r.add("answered", answered.Load())
	r.add("refused_429", limited.Load())
	r.add("relay_polls", polls.Load())
	r.add("polls_bound", bound)
	r.add("address_shown", shown.Load())
	r.Held = polls.Load() <= bound && !shown.Load() && answered.Load() > 0
	return r
}
