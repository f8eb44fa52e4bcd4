package relay

import (
	"context"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// BenchmarkRoomJoin: the time from a player's join request (WebSocket dial
// included) to its open data channel to the host, through the relay on
// 127.0.0.1: direct, and forced through TURN (relay-only ICE policy on both
// sides). ns/op is one join; the player leaves after each.
//
//	go test -run '^$' -bench 'RoomJoin/(direct|turn)$' -benchtime 20x ./relay
func BenchmarkRoomJoin(b *testing.B) {
	for _, c := range []struct {
		name string
		rtc  webrtc.Config
	}{
		{"direct", webrtc.Config{}},
		{"turn", webrtc.Config{RelayOnly: true}},
		// pion's own 2 s wait before accepting relay candidates, for
		// comparison (run it with -benchtime 3x).
		{"turn-pion-wait", webrtc.Config{RelayOnly: true, RelayAcceptanceMinWait: 2 * time.Second}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := startTestRelay(b, RoomConfig{MsgRate: 1e6, MsgBurst: 1e6})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r.url, WebRTC: c.rtc})
			if err != nil {
				b.Fatal(err)
			}
			defer host.Close()
			var joinT time.Duration
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: host.Code(), WebRTC: c.rtc})
				if err != nil {
					b.Fatal(err)
				}
				joinT += time.Since(start)
				b.StopTimer()
				if c.rtc.RelayOnly {
					if l, _ := p.Conn().PathTypes(); l != "relay" {
						b.Fatalf("path %s, want relay", l)
					}
				}
				p.Close()
				b.StartTimer()
			}
			b.ReportMetric(joinT.Seconds()*1e3/float64(b.N), "ms/join")
		})
	}
}
