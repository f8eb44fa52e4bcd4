//go:build linux

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/cli/health"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// benchRelay is a relay with its console (no token) on an httptest
// server, and 100 rooms of a host and 4 players over WebSockets that do
// what the relay asks of them (hosts answer its pings; players say their
// data channel opened) and nothing else.
type benchRelay struct {
	srv   *httptest.Server
	rr    *roomRelay
	hub   *console.Hub
	conns []*websocket.Conn
}

func startBenchRelay(b *testing.B, rooms, players int) *benchRelay {
	b.Helper()
	rr := &roomRelay{rooms: relay.NewRoomServer(relay.RoomConfig{ConnsPerAddr: 1 << 20, MaxConns: 1 << 20,
		JoiningPerAddr: 1 << 20, IdleTimeout: time.Hour, HostTimeout: time.Minute, OpenBurst: 1 << 20, OpenRate: 1e6, OpensPerConn: 1 << 20})}
	mux := http.NewServeMux()
	rr.mount(mux)
	var probe health.Probe
	c := console.New(console.Options{Provider: relayConsole{rr, &probe}})
	c.Mount(mux)
	br := &benchRelay{srv: httptest.NewServer(mux), rr: rr, hub: c.Hub()}
	url := "ws" + strings.TrimPrefix(br.srv.URL, "http") + roomproto.Path
	ctx := context.Background()
	for range rooms {
		h := br.dial(b, ctx, url)
		br.write(b, h, roomproto.Msg{Type: roomproto.MsgHost, V: 1})
		var hosted roomproto.Msg
		for hosted.Type != roomproto.MsgHosted {
			hosted = br.read(b, h)
		}
		go br.answerPings(h)
		for range players {
			p := br.dial(b, ctx, url)
			br.write(b, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code})
			if m := br.read(b, p); m.Type != roomproto.MsgJoined {
				b.Fatalf("join: %+v", m)
			}
			br.write(b, p, roomproto.Msg{Type: roomproto.MsgConnected})
			go func() { // reads (and drops) what comes
				for {
					if _, _, err := p.Read(ctx); err != nil {
						return
					}
				}
			}()
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for countPlaying(rr) < rooms*players {
		if time.Now().After(deadline) {
			b.Fatalf("%d players playing, want %d", countPlaying(rr), rooms*players)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return br
}

func countPlaying(rr *roomRelay) int {
	n := 0
	for _, r := range rr.rooms.Rooms() {
		for _, m := range r.Members {
			if m.Connected {
				n++
			}
		}
	}
	return n
}

func (br *benchRelay) dial(b *testing.B, ctx context.Context, url string) *websocket.Conn {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	br.conns = append(br.conns, c)
	return c
}

func (br *benchRelay) write(b *testing.B, c *websocket.Conn, m roomproto.Msg) {
	p, _ := json.Marshal(m)
	if err := c.Write(context.Background(), websocket.MessageText, p); err != nil {
		b.Fatal(err)
	}
}

func (br *benchRelay) read(b *testing.B, c *websocket.Conn) roomproto.Msg {
	_, p, err := c.Read(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var m roomproto.Msg
	json.Unmarshal(p, &m)
	return m
}

// answerPings answers the relay's pings until the connection closes.
func (br *benchRelay) answerPings(c *websocket.Conn) {
	ctx := context.Background()
	for {
		_, p, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m roomproto.Msg
		if json.Unmarshal(p, &m) == nil && m.Type == roomproto.MsgPing {
			pong, _ := json.Marshal(roomproto.Msg{Type: roomproto.MsgPong, N: m.N})
			if c.Write(ctx, websocket.MessageText, pong) != nil {
				return
			}
		}
	}
}

func (br *benchRelay) close() {
	for _, c := range br.conns {
		c.CloseNow()
	}
	br.rr.rooms.Close()
	br.srv.Close()
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRelayConsole is issue 32's "the console costs nothing when
// nobody watches": the CPU of a relay of 100 rooms of a host and 4
// players (their WebSockets in the same process, answering the relay's
// pings), over one second of wall time per iteration, without a console
// page open ("closed") and with one open ("open": an event stream read
// to the end, as the page does; the page's own drawing is the browser's
// CPU). It reports the process's CPU milliseconds per second of wall
// time (cpu-ms/s) and the console's polls of the relay per second
// (polls/s: none while closed). It fails if a room lost a player
// meanwhile (the figures would not be of 100 rooms of 4):
//
//	go test -run '^$' -bench RelayConsole -benchtime 10x ./cmd/rewind
func BenchmarkRelayConsole(b *testing.B) {
	br := startBenchRelay(b, 100, 4)
	defer br.close()
	for _, open := range []bool{false, true} {
		name := "closed"
		if open {
			name = "open"
		}
		b.Run(name, func(b *testing.B) {
			if open {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, "GET", br.srv.URL+console.Path+"/api/events", nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				go io.Copy(io.Discard, resp.Body) // what the page reads
				for !br.hub.Watching() {
					time.Sleep(time.Millisecond)
				}
			}
			time.Sleep(time.Second) // settle
			cpu0, wall0, polls0 := cpuTime(), time.Now(), br.hub.Polls()
			b.ResetTimer()
			for range b.N {
				time.Sleep(time.Second)
			}
			b.StopTimer()
			wall := time.Since(wall0)
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/wall.Seconds(), "cpu-ms/s")
			b.ReportMetric(float64(br.hub.Polls()-polls0)/wall.Seconds(), "polls/s")
			if n := countPlaying(br.rr); n != 400 {
				b.Fatalf("%d players left playing of 400: the figures are not of 100 rooms", n)
			}
		})
	}
}
