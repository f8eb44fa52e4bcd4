//go:build js && wasm

package tab

import (
	"sync"
	"syscall/js"

	"github.com/rewindnet/rewind/transport"
)

// Message kinds (a posted object's t field). The page posts to its
// Worker: start (the page's data attributes and query), module (the
// Worker's compiled wasm, or err; handled by worker.js), channel (a data
// channel transferred, or a MessagePort forwarding one: its id; handled
// by worker.js), opened and closed (a forwarded channel's state), joined
// (the channel id page.js's join opened), failed (the join failed: err),
// lost (the relay says the host of channel id is lost), claimed (the claim n
// of a host migration reached a host over channel id, or with host set
// made this tab the host: code, key) or claimfailed, hosted (the room
// this tab hosts is registered: code, key; or err), peer (channel id is
// the player peer's, in a room this tab hosts), unhosted (another player
// hosts the room code this tab hosted: the seat closes, and the channel
// the page's claim opened to the new host follows as joined) and input (n:
// Input.Pack). The Worker posts to the page: ready (its Go
// started; with stage, a mark of the page's timeline: wscript and
// wcompiled from worker.js, started (the session made over the join's
// channel), hello and welcomed), opened and closed (a transferred channel's state: worker.js),
// tick (the tick handler ran: status, runs, and at the first verified
// tick verified), frame (buf: a Frame's encoding), claim (n, code, key:
// migrate), leave (channel id: the session is done with it), bench
// (the in-tab measurement ?bench asks for: tick_ms, rollback60_ms) and
// game (the room plays game, not the one the page's data-game guessed:
// boot.js loads the page again with ?room=room&game=game) and help (the
// page's game and its line on the controls, for #hint).
const (
	MsgStart       = "start"
	MsgJoined      = "joined"
	MsgFailed      = "failed"
	MsgLost        = "lost"
	MsgClaimed     = "claimed"
	MsgClaimFailed = "claimfailed"
	MsgInput       = "input"
	MsgHosted      = "hosted"
	MsgPeer        = "peer"
	MsgUnhosted    = "unhosted"
	MsgReady       = "ready"
	MsgTick        = "tick"
	MsgFrame       = "frame"
	MsgClaim       = "claim"
	MsgLeave       = "leave"
	MsgBench       = "bench"
	MsgGame        = "game"
	MsgHelp        = "help"
)

// Now returns the browser's time in ms since the Unix epoch
// (performance.timeOrigin + performance.now()), which a page and its
// Worker share (Frame.At, the timeline's marks).
func Now() float64 {
	p := js.Global().Get("performance")
	return p.Get("timeOrigin").Float() + p.Call("now").Float()
}

// hostAddr is the host's address on a Conn, as the webrtc transport
// names it.
const hostAddr transport.Addr = "webrtc:host"

// Conn is the Worker's side of a data channel to the match's host: the
// RTCDataChannel the page transferred, or the MessagePort over which the
// page forwards it, that worker.js took as channel id (its send queue
// paced by bufferedAmount as the webrtc transport's is). Ready fires for
// every datagram and state change of any channel (the Worker's one wake
// channel). Close tells the page to leave the room (MsgLeave).
type Conn struct {
	id    int
	ready <-chan struct{}
	post  func(js.Value)

	mu     sync.Mutex
	closed bool
	lost   chan struct{}
	lostMu sync.Once
	buf    js.Value
}

// NewConn returns the Conn of channel id; ready is the Worker's wake
// channel, post posts a message to the page.
func NewConn(id int, ready <-chan struct{}, post func(js.Value)) *Conn {
	return &Conn{id: id, ready: ready, post: post, lost: make(chan struct{})}
}

// ID returns the channel's id.
func (c *Conn) ID() int { return c.id }

// Lost returns a channel closed once the page says the relay lost this
// channel's host (HostLost).
func (c *Conn) Lost() <-chan struct{} { return c.lost }

// HostLost closes Lost's channel.
func (c *Conn) HostLost() { c.lostMu.Do(func() { close(c.lost) }) }

// Send implements transport.Conn: to the host, if the channel is open (a
// datagram sent before or after is dropped, as the network may drop it).
func (c *Conn) Send(to transport.Addr, p []byte) error {
	if len(p) > transport.MaxDatagram {
		return transport.ErrTooLarge
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return transport.ErrClosed
	}
	u := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(u, p)
	js.Global().Call("rewindSend", c.id, u)
	return nil
}

// Recv implements transport.Conn.
func (c *Conn) Recv(p []byte) (int, transport.Addr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, "", transport.ErrClosed
	}
	v := js.Global().Call("rewindRecv", c.id)
	if v.IsNull() {
		return 0, "", transport.ErrWouldBlock
	}
	return js.CopyBytesToGo(p, v), hostAddr, nil
}

// Ready implements transport.Conn.
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// LocalAddr implements transport.Conn.
func (c *Conn) LocalAddr() transport.Addr { return "tab:worker" }

// RemoteAddr implements transport.Conn: the host.
func (c *Conn) RemoteAddr() transport.Addr { return hostAddr }

// Close implements transport.Conn: it drops the channel and tells the
// page to leave the room it was joined through.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return transport.ErrClosed
	}
	c.closed = true
	js.Global().Call("rewindDrop", c.id)
	m := js.Global().Get("Object").New()
	m.Set("t", MsgLeave)
	m.Set("id", c.id)
	c.post(m)
	return nil
}
