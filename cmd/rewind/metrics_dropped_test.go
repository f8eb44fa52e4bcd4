package main

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/internal/tools/attack"
	"github.com/rewindnet/rewind/transport/udp"
)

// TestServeDroppedMetrics floods `rewind serve --http` (one match, then
// --rooms) with every kind of bench flood's bogus datagrams for a moment,
// plus UDP sessions that send what the match or the router must drop, and
// scrapes /metrics: rewind_udp_dropped_datagrams_total counts them by
// reason (malformed, unknown_session, bad_token, match_malformed; with
// --rooms also unrouted and no_room), and rewind_udp_retries_total the
// hellos answered statelessly. The router's reasons exist only with
// --rooms.
func TestServeDroppedMetrics(t *testing.T) {
	checkLeaks(t)
	for _, tc := range []struct {
		name  string
		args  []string
		want  []string
		never []string
	}{
		{"one-match", nil, []string{"malformed", "unknown_session", "bad_token", "match_malformed"}, []string{"unrouted", "no_room", "match_queue_full"}},
		{"rooms", []string{"--rooms", "1"}, []string{"malformed", "unknown_session", "bad_token", "unrouted", "no_room"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--game", "sand", "--udp", "127.0.0.1:0", "--grid", "32", "--players", "2", "--http", "127.0.0.1:0", "--status", "0"}, tc.args...)
			udpAddr, httpAddr, stop := startServe(t, args...)
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			server := netip.MustParseAddrPort(udpAddr)
			fctx, fcancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err := attack.Flood(fctx, attack.FloodConfig{Server: server, Local: netip.MustParseAddr("127.0.0.1"),
				Rate: 2000, HelloRate: 200, HelloPorts: 10, Kinds: attack.FloodKinds})
			fcancel()
			if err != nil {
				t.Fatal(err)
			}
			// Sessions that speak UDP but not the match: a first datagram
			// that is no hello, and a hello for a room nobody has. Each is
			// sent again at every scrape until all is counted: the kernel
			// may drop a datagram from the server's socket buffer while
			// the flood's backlog fills it (CI under load lost one and
			// waited its 30 s).
			hello := (&codec.Hello{Game: 1, HasRoom: true, Room: [codec.MaxRoomCodeSize]byte{'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}}).Append(nil)
			payloads := [][]byte{[]byte("not a hello"), hello}
			var sessions []*udp.Client
			for range payloads {
				c, err := udp.DialContext(ctx, udpAddr, udp.Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				sessions = append(sessions, c)
			}
			var got map[string]float64
			defer func() {
				if t.Failed() {
					t.Logf("the last scrape: %v", got)
				}
			}()
			testutil.WaitUntil(ctx, t, "every reason counted", func() bool {
				for i, c := range sessions {
					c.Send(c.RemoteAddr(), payloads[i])
				}
				got = scrapeDrops(t, httpAddr)
				for _, r := range tc.want {
					if got[r] <= 0 {
						return false
					}
				}
				return got["retries"] > 0
			})
			for _, r := range tc.never {
				if _, ok := got[r]; ok {
					t.Errorf("reason %q exported without --rooms", r)
				}
			}
			http.DefaultClient.CloseIdleConnections()
		})
	}
}

var dropLine = regexp.MustCompile(`(?m)^rewind_udp_dropped_datagrams_total\{reason="([a-z_]+)"\} ([0-9.e+]+)$`)
var retriesLine = regexp.MustCompile(`(?m)^rewind_udp_retries_total ([0-9.e+]+)$`)

// scrapeDrops returns the dropped datagrams by reason on httpAddr's
// /metrics, and the retries under "retries".
func scrapeDrops(t *testing.T, httpAddr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := map[string]float64{}
	for _, s := range dropLine.FindAllStringSubmatch(string(body), -1) {
		m[s[1]], _ = strconv.ParseFloat(s[2], 64)
	}
	if s := retriesLine.FindStringSubmatch(string(body)); s != nil {
		m["retries"], _ = strconv.ParseFloat(s[1], 64)
	}
	return m
}
