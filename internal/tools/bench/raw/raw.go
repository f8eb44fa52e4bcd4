// Package raw is the raw socket loop the UDP benchmarks measure rewind's
// server against (bench fleet's vs_raw, BenchmarkUDPServerCPU), and the
// raw bots that load it.
package raw

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Loop is the raw socket loop: a plain
// net.UDPConn on 127.0.0.1 with a reader goroutine that notes its peers,
// one ReadFromUDPAddrPort (recvfrom(2)) per datagram, and a ticker that
// writes every peer one outSize-byte datagram per tick, one
// WriteToUDPAddrPort (sendto(2)) each: no framing, no batching, nothing
// but the datagrams.
type Loop struct {
	conn *net.UDPConn

	mu    sync.Mutex
	peers []netip.AddrPort
	known map[netip.AddrPort]bool

	dgIn, dgOut atomic.Uint64
	stop        chan struct{}
	readerDone  chan struct{}
	tickerDone  chan struct{}
}

// Start opens the raw loop's socket and starts its reader and its
// ticker, rate ticks a second, writing every peer an outSize-byte
// datagram each tick.
func Start(outSize, rate int) (*Loop, error) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	l := &Loop{
		conn: conn, known: map[netip.AddrPort]bool{},
		stop: make(chan struct{}), readerDone: make(chan struct{}), tickerDone: make(chan struct{}),
	}
	go l.read()
	go l.tick(outSize, rate)
	return l, nil
}

func (l *Loop) read() {
	defer close(l.readerDone)
	buf := make([]byte, 2048)
	for {
		_, from, err := l.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		l.dgIn.Add(1)
		l.mu.Lock()
		if !l.known[from] {
			l.known[from] = true
			l.peers = append(l.peers, from)
		}
		l.mu.Unlock()
	}
}

func (l *Loop) tick(outSize, rate int) {
	defer close(l.tickerDone)
	out := make([]byte, outSize)
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		for _, p := range l.peers {
			if _, err := l.conn.WriteToUDPAddrPort(out, p); err == nil {
				l.dgOut.Add(1)
			}
		}
		l.mu.Unlock()
	}
}

// Addr is the socket's address, HOST:PORT.
func (l *Loop) Addr() string { return l.conn.LocalAddr().String() }

// WaitPeers waits until n peers were heard, for at most timeout.
func (l *Loop) WaitPeers(n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		l.mu.Lock()
		got := len(l.peers)
		l.mu.Unlock()
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("raw bots: %d of %d arrived", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Peers returns how many peers were heard.
func (l *Loop) Peers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.peers)
}

// Counts returns the datagrams read and written so far.
func (l *Loop) Counts() (in, out uint64) { return l.dgIn.Load(), l.dgOut.Load() }

// Close stops the ticker, closes the socket and waits for the reader.
func (l *Loop) Close() {
	close(l.stop)
	<-l.tickerDone
	l.conn.Close()
	<-l.readerDone
}
