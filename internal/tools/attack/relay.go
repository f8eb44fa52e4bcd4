package attack

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// relayTarget is a rooms relay served as `rewind relay` serves it (the
// HTTP limits of internal/netutil) on 127.0.0.1.
type relayTarget struct {
	rooms *relay.RoomServer
	ll    *netutil.LimitedListener
	hs    *http.Server
	url   string
	addr  string
	done  chan struct{}
}

func startRelay(lim netutil.HTTPLimits, cfg relay.RoomConfig) (*relayTarget, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &relayTarget{rooms: relay.NewRoomServer(cfg), ll: lim.Listener(ln), addr: ln.Addr().String(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, t.rooms)
	t.hs = lim.Server(mux)
	t.url = "ws://" + t.addr + roomproto.Path
	go func() {
		defer close(t.done)
		_ = t.hs.Serve(t.ll)
	}()
	return t, nil
}

func (t *relayTarget) stop() {
	t.rooms.Close()
	t.hs.Close()
	<-t.done
}

type wsMsg struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Error string `json:"error"`
}

// wsJoin dials the relay and asks to join code; it returns the connection
// and the relay's answer.
func wsJoin(ctx context.Context, url, code string) (*websocket.Conn, wsMsg, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, wsMsg{}, err
	}
	m, err := wsAsk(ctx, c, `{"type":"join","v":1,"code":"`+code+`"}`)
	if err != nil {
		c.CloseNow()
		return nil, m, err
	}
	return c, m, nil
}

func wsAsk(ctx context.Context, c *websocket.Conn, msg string) (wsMsg, error) {
	var m wsMsg
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		return m, err
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// RoomSquatters: 32 joiners that never open a data channel, from one
// address, in a 16-player room; then a legitimate player joins and opens
// its channel. Before issue 15, 15 squatters made the room "full".
func RoomSquatters(ctx context.Context, cfg Config) Result {
	r := Result{Name: "room_squatters"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: t.url, MaxPlayers: 16})
	if err != nil {
		r.Err = err
		return r
	}
	defer host.Close()
	joined := 0
	var squat []*websocket.Conn
	for range 32 {
		c, m, err := wsJoin(ctx, t.url, host.Code())
		if err == nil {
			squat = append(squat, c)
			if m.Type == "joined" {
				joined++
			}
		}
	}
	defer func() {
		for _, c := range squat {
			c.CloseNow()
		}
	}()
	kept := t.rooms.RoomStats().Pending
	start := time.Now()
	c, m, err := wsJoin(ctx, t.url, host.Code())
	ok := err == nil && m.Type == "joined"
	if ok {
		defer c.CloseNow()
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"connected"}`)); err != nil {
			ok = false
		}
		// No error may follow: a room_full would come at once.
		rctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		_, b, err := c.Read(rctx)
		cancel()
		if err == nil && strings.Contains(string(b), `"error"`) {
			ok = false
			r.add("legit_error", string(b))
		}
	} else if err == nil {
		r.add("legit_answer", m.Type+":"+m.Error)
	}
	r.add("squatters", 32)
	r.add("squatters_joined", joined)
	r.add("squatters_kept", kept)
	r.add("room_players", 16)
	r.add("legit_join_ms", time.Since(start).Milliseconds())
	r.Held = ok
	return r
}

// randomCode returns a random code of the default length.
func randomCode(rng *rand.Rand) string {
	b := make([]byte, roomcode.DefaultLen)
	for i := range b {
		b[i] = roomcode.Alphabet[rng.IntN(len(roomcode.Alphabet))]
	}
	return string(b)
}

// codeSpace is the number of codes of the default length (32^7).
func codeSpace() float64 {
	return math.Pow(float64(len(roomcode.Alphabet)), roomcode.DefaultLen)
}

// CodeGuessing: one address guesses room codes over 64 connections as
// fast as the relay answers, reconnecting whenever it is cut off. Before
// issue 15: 2,866 guesses a second (25,770 reconnecting).
func CodeGuessing(ctx context.Context, cfg Config) Result {
	r := Result{Name: "code_guessing"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	dur := pick(cfg, 2*time.Second, 10*time.Second)
	actx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var answered, limited, dials atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 15))
			for actx.Err() == nil {
				c, _, err := websocket.Dial(actx, t.url, nil)
				dials.Add(1)
				if err != nil {
					continue
				}
				for actx.Err() == nil {
					m, err := wsAsk(actx, c, `{"type":"join","v":1,"code":"`+randomCode(rng)+`"}`)
					if err != nil {
						break
					}
					if m.Error == roomproto.ErrCodeNoRoom {
						answered.Add(1)
					} else {
						limited.Add(1)
						break
					}
				}
				c.CloseNow()
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	rate := float64(answered.Load()) / secs
	r.add("seconds", secs)
	r.add("dials", dials.Load())
	r.add("guesses_answered", answered.Load())
	r.add("refused", limited.Load())
	r.add("guesses_per_s", rate)
	// With 1,000 live rooms, half the codes of the default length to try
	// on average.
	if rate > 0 {
		r.add("code_length", roomcode.DefaultLen)
		r.add("days_to_find_1_of_1000_rooms", codeSpace()/1000/2/rate/86400)
	}
	// The bucket: 20 at once, then 1 a second.
	r.Held = float64(answered.Load()) <= 20+secs+1
	return r
}

// BigFrame: a WebSocket frame header declaring 2^63-1 bytes, then
// nothing; the relay must close at once, not at its 30 s idle timeout.
func BigFrame(ctx context.Context, cfg Config) Result {
	r := Result{Name: "big_frame"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	c, err := net.Dial("tcp", t.addr)
	if err != nil {
		r.Err = err
		return r
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", roomproto.Path, t.addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		r.Err = fmt.Errorf("upgrade: %v", err)
		return r
	}
	hdr := binary.BigEndian.AppendUint64([]byte{0x81, 0x80 | 127}, 1<<63-1)
	start := time.Now()
	c.Write(append(hdr, 1, 2, 3, 4))
	c.SetReadDeadline(time.Now().Add(40 * time.Second))
	_, err = io.Copy(io.Discard, br)
	elapsed := time.Since(start)
	timedOut := false
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		timedOut = true
	}
	r.add("declared_bytes", uint64(1<<63-1))
	r.add("closed_after_ms", elapsed.Milliseconds())
	r.Held = !timedOut && elapsed < 5*time.Second
	return r
}

// IdleHTTP: one address opens 5,000 keep-alive connections to the relay's
// HTTP server, makes one request on each and goes silent. Before issue
// 15 every one stayed open (5,000 descriptors, 100 MB); now at most
// ConnsPerIP are open at once and each is closed by the idle timeout.
func IdleHTTP(ctx context.Context, cfg Config) Result {
	r := Result{Name: "idle_http"}
	lim := netutil.HTTPLimits{}.WithDefaults()
	if cfg.Short {
		lim.IdleTimeout, lim.ReadHeaderTimeout = time.Second, time.Second
	}
	t, err := startRelay(lim, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	n := pick(cfg, 1000, 5000)
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	start := time.Now()
	for range n {
		c, err := net.Dial("tcp", t.addr)
		if err != nil {
			break
		}
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // 404, then idle keep-alive
		conns = append(conns, c)
	}
	peak := 0
	deadline := start.Add(lim.IdleTimeout + lim.ReadHeaderTimeout + 5*time.Second)
	for time.Now().Before(deadline) {
		open, _ := t.ll.Stats()
		peak = max(peak, open)
		if open == 0 && time.Since(start) > 100*time.Millisecond {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	open, refused := t.ll.Stats()
	r.add("connections", len(conns))
	r.add("refused_at_accept", refused)
	r.add("peak_open", peak)
	r.add("conns_per_ip", lim.ConnsPerIP)
	r.add("idle_timeout_s", lim.IdleTimeout.Seconds())
	r.add("all_closed_after_s", time.Since(start).Seconds())
	r.add("open_at_end", open)
	r.Held = open == 0 && peak <= lim.ConnsPerIP
	return r
}
