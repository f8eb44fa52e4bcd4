package relays

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/internal/tools/bench"
)

// bench relays' clients: hosts and players that speak the rooms protocol
// (docs/rooms.md) over a WebSocket and nothing else. A host answers the
// relay's pings; a player reports its data channel open ("connected") as
// soon as it has joined: no WebRTC, so what is measured is the relays'
// signaling, their Redis directory and the pub/sub between them.

// benchMsg is the part of a rooms message the bench reads or writes.
type benchMsg struct {
	Type   string `json:"type"`
	V      int    `json:"v,omitempty"`
	Code   string `json:"code,omitempty"`
	Key    string `json:"key,omitempty"`
	ID     string `json:"id,omitempty"`
	N      uint64 `json:"n,omitempty"`
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// benchWait bounds each wait for a relay's answer.
const benchWait = 10 * time.Second

// rconn is one WebSocket to a relay. Its reader answers pings, notes when
// the relay says a player left (leftAt), and queues every other message.
type rconn struct {
	ws     *websocket.Conn
	wmu    sync.Mutex
	msgs   chan benchMsg
	done   chan struct{} // closed when the WebSocket ends
	leftAt atomic.Int64  // unix ns of the last "left"
}

// benchDialers holds an HTTP client per loopback source address: the
// relays cap connections per address (64), so the bench's thousands come
// from many 127.x addresses.
type benchDialers struct {
	mu      sync.Mutex
	clients map[string]*http.Client
}

func (d *benchDialers) client(ip string) *http.Client {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.clients[ip]; c != nil {
		return c
	}
	if d.clients == nil {
		d.clients = make(map[string]*http.Client)
	}
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: benchWait}
	c := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true}}
	d.clients[ip] = c
	return c
}

// benchIP is the i-th loopback source address of the bench's clients.
func benchIP(i int) string { return fmt.Sprintf("127.1.%d.%d", i/250, 2+i%250) }

// dial opens a WebSocket to url from ip.
func (d *benchDialers) dial(url, ip string) (*rconn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), benchWait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, benchDialOptions(d.client(ip)))
	if err != nil {
		return nil, err
	}
	c := &rconn{ws: ws, msgs: make(chan benchMsg, 16), done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *rconn) read() {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		var m benchMsg
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch m.Type {
		case "ping":
			c.send(benchMsg{Type: "pong", N: m.N})
		case "left":
			c.leftAt.Store(time.Now().UnixNano())
		default:
			select {
			case c.msgs <- m:
			default: // nobody reads: the bench found it unexpected already
			}
		}
	}
}

func (c *rconn) send(m benchMsg) error {
	b, _ := json.Marshal(m)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), benchWait)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// expect waits for the next message, which must be of type typ.
func (c *rconn) expect(typ string) (benchMsg, error) {
	select {
	case m := <-c.msgs:
		if m.Type != typ {
			return m, fmt.Errorf("got %s %s %s, want %s", m.Type, m.Error, m.Reason, typ)
		}
		return m, nil
	case <-c.done:
		return benchMsg{}, fmt.Errorf("connection closed waiting for %s", typ)
	case <-time.After(benchWait):
		return benchMsg{}, fmt.Errorf("no %s within %v", typ, benchWait)
	}
}

// quiet reports whether c is open and got nothing it was not waiting for.
func (c *rconn) quiet() bool {
	select {
	case <-c.done:
		return false
	default:
	}
	return len(c.msgs) == 0
}

func (c *rconn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *rconn) close() {
	c.ws.CloseNow()
	<-c.done
}

// benchRoom is one room of the bench: its host, connected to relay
// hostRelay, and one player, joined through relay playerRelay.
type benchRoom struct {
	code, key              string
	hostRelay, playerRelay int
	host, player           *rconn
}

// openRoom hosts a room through relays[hr] and joins it through
// relays[pr]; join is how long the join took (sent → joined: across
// relays, the Redis lookup and a pub/sub round trip).
func (d *benchDialers) openRoom(relays []string, hr, pr int, hostIP, playerIP string) (r *benchRoom, join time.Duration, err error) {
	host, err := d.dial(relays[hr], hostIP)
	if err != nil {
		return nil, 0, fmt.Errorf("host dial: %w", err)
	}
	fail := func(c *rconn, what string, err error) (*benchRoom, time.Duration, error) {
		host.close()
		if c != nil {
			c.close()
		}
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	if err := host.send(benchMsg{Type: "host", V: 1}); err != nil {
		return fail(nil, "host", err)
	}
	hosted, err := host.expect("hosted")
	if err != nil {
		return fail(nil, "host", err)
	}
	player, err := d.dial(relays[pr], playerIP)
	if err != nil {
		return fail(nil, "player dial", err)
	}
	start := time.Now()
	if err := player.send(benchMsg{Type: "join", V: 1, Code: hosted.Code}); err != nil {
		return fail(player, "join", err)
	}
	if _, err := player.expect("joined"); err != nil {
		return fail(player, "join", err)
	}
	join = time.Since(start)
	if err := player.send(benchMsg{Type: "connected"}); err != nil {
		return fail(player, "connected", err)
	}
	if _, err := host.expect("player"); err != nil {
		return fail(player, "host's player", err)
	}
	return &benchRoom{code: hosted.Code, key: hosted.Key, hostRelay: hr, playerRelay: pr, host: host, player: player}, join, nil
}

// closeRoom ends r with its key and waits for the host, and the player
// if its relay is alive, to hear it ended.
func (r *benchRoom) closeRoom() error {
	defer r.host.close()
	defer r.player.close()
	if err := r.host.send(benchMsg{Type: "end", Code: r.code, Key: r.key}); err != nil {
		return fmt.Errorf("end %s: %w", r.code, err)
	}
	if _, err := r.host.expect("ended"); err != nil {
		return fmt.Errorf("end %s (host): %w", r.code, err)
	}
	if !r.player.closed() {
		if _, err := r.player.expect("ended"); err != nil {
			return fmt.Errorf("end %s (player): %w", r.code, err)
		}
	}
	return nil
}

// relayProc is a `rewind relay` process of the bench.
type relayProc struct {
	cmd *exec.Cmd
	out *os.File // its standard output's reading end
	url string
}

// startRelayProc starts `rewind relay --redis URL` and reads its url=.
func startRelayProc(command []string, stderr io.Writer, redisURL string, ttl time.Duration) (*relayProc, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd, err := bench.Start(command, pw, stderr, "relay", "--http", "127.0.0.1:0", "--turn", "none", "--redis", redisURL, "--redis-ttl", ttl.String())
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	out := pr
	line, err := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	p := &relayProc{cmd: cmd, out: pr, url: bench.ParseKV(line)["url"]}
	if err != nil || p.url == "" {
		p.kill()
		return nil, errors.Join(fmt.Errorf("relay printed %q", line), err)
	}
	return p, nil
}

// kill ends the process at once (SIGKILL) and waits for it.
func (p *relayProc) kill() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
	p.out.Close()
}
