package transport

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// multiAddrCache bounds each member's cache of outer addresses; a full
// cache is cleared (peers churn: UDP session addresses are never reused).
const multiAddrCache = 4096

// MultiConn is one server-side Conn over several (for example a UDP server
// and a WebRTC host), so that one match takes players from all of them at
// once. A peer of member i appears under the Addr "i/" followed by its
// address on that member ("0/udp:127.0.0.1:4000#9", "1/webrtc:K3F9"):
// addresses of different members stay distinct, and an Addr keeps being
// equal to itself for as long as the member's does. Send routes by that
// prefix.
//
// Recv takes turns among the members so that a busy one cannot starve
// another. Ready merges the members' Ready channels through one small
// goroutine per member, started by the first call to Ready and stopped by
// Close (a loop in made-up time that only polls Recv starts none).
//
// A MultiConn is a Batcher (multi_batch.go): its Batches batch the sends
// to the peers of members that are Batchers themselves (a udp.Server).
//
// A MultiConn owns its members: Close closes them all. A member that fails
// on its own (Recv returning an error other than ErrWouldBlock) fails the
// MultiConn's Recv with that error.
type MultiConn struct {
	members []Conn
	local   Addr

	mu     sync.Mutex // next, cache, closed, started
	sendMu sync.Mutex // one sender at a time for a member that is not a Batcher
	next   int
	cache  []map[Addr]Addr
	closed bool

	readyOnce sync.Once
	ready     chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup
}

var _ Conn = (*MultiConn)(nil)

// NewMulti returns a Conn over members, which must be server-side Conns
// (RemoteAddr "") and at least one; anything else fails with ErrBadConfig.
// Member i's peers appear as MultiAddr(i, addr).
func NewMulti(members ...Conn) (*MultiConn, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("transport: multi of no Conns: %w", ErrBadConfig)
	}
	locals := make([]string, len(members))
	cache := make([]map[Addr]Addr, len(members))
	for i, c := range members {
		if c == nil {
			return nil, fmt.Errorf("transport: multi member %d is nil: %w", i, ErrBadConfig)
		}
		if r := c.RemoteAddr(); r != "" {
			return nil, fmt.Errorf("transport: multi member %d is a client Conn (peer %s): %w", i, r, ErrBadConfig)
		}
		locals[i] = string(MultiAddr(i, c.LocalAddr()))
		cache[i] = make(map[Addr]Addr)
	}
	return &MultiConn{
		members: append([]Conn(nil), members...),
		local:   Addr("multi(" + strings.Join(locals, ",") + ")"),
		cache:   cache,
		ready:   make(chan struct{}, 1),
		done:    make(chan struct{}),
	}, nil
}

// MultiAddr is the Addr under which a MultiConn shows the peer addr of its
// member i.
func MultiAddr(i int, addr Addr) Addr { return Addr(strconv.Itoa(i) + "/" + string(addr)) }

// SplitMultiAddr returns the member index and the member's own address of
// an Addr made by MultiAddr; ok is false for anything else.
func SplitMultiAddr(a Addr) (i int, addr Addr, ok bool) {
	s := string(a)
	slash := strings.IndexByte(s, '/')
	if slash <= 0 || slash > 4 {
		return 0, "", false
	}
	i = 0
	for _, c := range s[:slash] {
		if c < '0' || c > '9' {
			return 0, "", false
		}
		i = i*10 + int(c-'0')
	}
	if slash > 1 && s[0] == '0' {
		return 0, "", false // one spelling per index
	}
	return i, Addr(s[slash+1:]), true
}

// Member returns member i (as given to NewMulti).
func (m *MultiConn) Member(i int) Conn { return m.members[i] }

// Members returns how many Conns m joins.
func (m *MultiConn) Members() int { return len(m.members) }

// Send implements Conn: to must be an Addr that Recv returned (or
// MultiAddr of a member's peer).
func (m *MultiConn) Send(to Addr, p []byte) error {
	if m.isClosed() {
		return fmt.Errorf("transport: multi send to %s: %w", to, ErrClosed)
	}
	i, addr, ok := SplitMultiAddr(to)
	if !ok || i >= len(m.members) {
		return fmt.Errorf("transport: multi send to %q: %w", to, ErrUnknownPeer)
	}
	return m.sendMember(i, addr, p)
}

// Recv implements Conn: the next datagram of any member, taking turns.
func (m *MultiConn) Recv(p []byte) (int, Addr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, "", fmt.Errorf("transport: multi recv: %w", ErrClosed)
	}
	k := len(m.members)
	for j := range k {
		i := (m.next + j) % k
		n, from, err := m.members[i].Recv(p)
		if errors.Is(err, ErrWouldBlock) {
			continue
		}
		if err != nil {
			return 0, "", fmt.Errorf("transport: multi member %d: %w", i, err)
		}
		m.next = (i + 1) % k
		return n, m.outer(i, from), nil
	}
	return 0, "", ErrWouldBlock
}

// outer returns MultiAddr(i, from), cached so that a steady stream of
// datagrams does not allocate. Called with m.mu held.
func (m *MultiConn) outer(i int, from Addr) Addr {
	c := m.cache[i]
	if a, ok := c[from]; ok {
		return a
	}
	if len(c) >= multiAddrCache {
		clear(c)
	}
	a := MultiAddr(i, from)
	c[from] = a
	return a
}

// Ready implements Conn: it signals when any member's Ready does. The
// channel holds at most one signal: after a wake-up, call Recv until it
// returns ErrWouldBlock. Close does not close the channel.
func (m *MultiConn) Ready() <-chan struct{} {
	m.readyOnce.Do(func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed {
			return
		}
		for _, c := range m.members {
			m.wg.Add(1)
			go m.forward(c.Ready())
		}
	})
	return m.ready
}

// forward passes a member's ready signals on until Close.
func (m *MultiConn) forward(r <-chan struct{}) {
	defer m.wg.Done()
	for {
		select {
		case <-m.done:
			return
		case <-r:
			select {
			case m.ready <- struct{}{}:
			default:
			}
		}
	}
}

// LocalAddr implements Conn: "multi(" and the members' local addresses,
// prefixed as their peers are, ")".
func (m *MultiConn) LocalAddr() Addr { return m.local }

// RemoteAddr implements Conn: "" (a MultiConn has many peers).
func (m *MultiConn) RemoteAddr() Addr { return "" }

// Close closes every member and stops Ready's goroutines; it returns the
// first member's error.
func (m *MultiConn) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return fmt.Errorf("transport: multi close: %w", ErrClosed)
	}
	m.closed = true
	close(m.done)
	m.mu.Unlock()
	m.wg.Wait()
	var first error
	for i, c := range m.members {
		if err := c.Close(); err != nil && first == nil {
			first = fmt.Errorf("transport: multi member %d: %w", i, err)
		}
	}
	return first
}

func (m *MultiConn) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
