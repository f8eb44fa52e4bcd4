//go:build js && wasm

package tab

import (
	"sync"
	"syscall/js"

	"github.com/rewindnet/rewind/transport"
)

// HostConn is the Worker's side of a room this tab hosts: a server-side
// transport.Conn over the data channels the page handed over, one per
// player, each under the address the webrtc transport gives that player
// ("webrtc:p1"). The page names each channel's player with MsgPeer
// (AddPeer); worker.js carries the channels' datagrams as it does a
// Conn's. Ready is the Worker's one wake channel.
type HostConn struct {
	ready <-chan struct{}

	mu     sync.Mutex
	closed bool
	ids    map[transport.Addr]int // the newest channel of each player
	order  []int                  // channel ids, in the order Recv visits them
	addrs  map[int]transport.Addr
	next   int // where Recv looks first
}

// NewHostConn returns an empty HostConn; ready is the Worker's wake
// channel.
func NewHostConn(ready <-chan struct{}) *HostConn {
	return &HostConn{ready: ready, ids: map[transport.Addr]int{}, addrs: map[int]transport.Addr{}}
}

// AddPeer takes channel id as the one of the player at addr (a player
// who connects again replaces its older channel).
func (c *HostConn) AddPeer(id int, addr transport.Addr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.ids[addr]; ok {
		c.dropLocked(old)
	}
	c.ids[addr] = id
	c.addrs[id] = addr
	c.order = append(c.order, id)
}

// DropPeer forgets channel id (it closed).
func (c *HostConn) DropPeer(id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(id)
}

func (c *HostConn) dropLocked(id int) {
	addr, ok := c.addrs[id]
	if !ok {
		return
	}
	delete(c.addrs, id)
	if c.ids[addr] == id {
		delete(c.ids, addr)
	}
	for i, o := range c.order {
		if o == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	js.Global().Call("rewindDrop", id)
}

// Peers returns how many players' channels the HostConn holds.
func (c *HostConn) Peers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids)
}

// Send implements transport.Conn: to the player at to, over its channel
// (dropped while the channel is not open, as the network may drop it).
func (c *HostConn) Send(to transport.Addr, p []byte) error {
	if len(p) > transport.MaxDatagram {
		return transport.ErrTooLarge
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return transport.ErrClosed
	}
	id, ok := c.ids[to]
	if !ok {
		return transport.ErrUnknownPeer
	}
	u := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(u, p)
	js.Global().Call("rewindSend", id, u)
	return nil
}

// Recv implements transport.Conn: the next datagram of any player's
// channel, the channels visited in turn.
func (c *HostConn) Recv(p []byte) (int, transport.Addr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, "", transport.ErrClosed
	}
	for range c.order {
		c.next = (c.next + 1) % len(c.order)
		id := c.order[c.next]
		if v := js.Global().Call("rewindRecv", id); !v.IsNull() {
			return js.CopyBytesToGo(p, v), c.addrs[id], nil
		}
	}
	return 0, "", transport.ErrWouldBlock
}

// Ready implements transport.Conn.
func (c *HostConn) Ready() <-chan struct{} { return c.ready }

// LocalAddr implements transport.Conn.
func (c *HostConn) LocalAddr() transport.Addr { return hostAddr }

// RemoteAddr implements transport.Conn: "", a Conn of many peers.
func (c *HostConn) RemoteAddr() transport.Addr { return "" }

// Close implements transport.Conn: it drops every channel (the page's
// relay connection, and with it the room, is the page's to close).
func (c *HostConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return transport.ErrClosed
	}
	c.closed = true
	for _, id := range append([]int(nil), c.order...) {
		c.dropLocked(id)
	}
	return nil
}
