package attack

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// Flood kinds (FloodConfig.Kinds).
const (
	// FloodRandom is random bytes of 1 to 300, from one address: most
	// are malformed frames, some look like frames for no session.
	FloodRandom = "random"
	// FloodWire is well-formed frames of the sealed UDP framing for
	// sessions that do not exist (sealed DATA and PING with random ids
	// and counters), from one address.
	FloodWire = "wire"
	// FloodHello is padded HELLOs from many source ports, each with a
	// new connection id and key: half carry no token (the server answers
	// each with a RETRY, keeping nothing), half a forged token (dropped).
	FloodHello = "hello"
)

// FloodKinds is every flood kind.
var FloodKinds = []string{FloodRandom, FloodWire, FloodHello}

// The sealed UDP framing as a flood forges it (transport/udp/wire.go has
// the layout; TestBenchFlood checks that each lands in the server counter
// it aims at).
const (
	floodSealedData = 0x20 // type(1) id(8) counter(8) ciphertext and tag(16+)
	floodSealedPing = 0x22 // type(1) id(8) counter(8) tag(16)
	floodSealedLen  = 1 + 8 + 8 + 16
	floodHello      = 0x01 // type(1) version(1)=2 cid(8) e(32) tokenLen(1) token, padded
	floodRetry      = 0x02 // type(1) version(1) cid(8) tokenLen(1) token
	floodHelloLen   = floodSealedLen + transport.MaxDatagram
	floodTokenLen   = 8 + 16
)

// FloodConfig says what a Flood sends. Rate and HelloRate are spread
// evenly over each millisecond-ish step, whatever the kinds.
type FloodConfig struct {
	// Server is the UDP server's address.
	Server netip.AddrPort
	// Local is the IP address every datagram comes from.
	Local netip.Addr
	// Rate is the bogus datagrams a second of the random and wire kinds,
	// together, from one port of Local.
	Rate int
	// HelloRate is the HELLOs a second of the hello kind, and HelloPorts
	// the source ports of Local they come from in turn.
	HelloRate, HelloPorts int
	// Kinds are the kinds sent (FloodKinds' names).
	Kinds []string
}

// FloodCounts is what a Flood sent.
type FloodCounts struct {
	// Bogus counts the random and wire datagrams, Hellos the hellos.
	Bogus, Hellos uint64
}

// Flood sends cfg's bogus datagrams at their rates until ctx ends, and
// says how many it sent. It fails only when it cannot open its sockets.
func Flood(ctx context.Context, cfg FloodConfig) (FloodCounts, error) {
	for _, k := range cfg.Kinds {
		if !slices.Contains(FloodKinds, k) {
			return FloodCounts{}, fmt.Errorf("attack: flood kind %q: want one of %v", k, FloodKinds)
		}
	}
	var pool [][]byte
	if slices.Contains(cfg.Kinds, FloodRandom) {
		pool = append(pool, floodRandom(256)...)
	}
	if slices.Contains(cfg.Kinds, FloodWire) {
		pool = append(pool, floodWire(256)...)
	}
	var hellos [][]byte
	if slices.Contains(cfg.Kinds, FloodHello) {
		hellos = floodHellos(256)
	}
	var counts [2]atomic.Uint64
	var wg sync.WaitGroup
	var conns []*net.UDPConn
	defer func() {
		wg.Wait()
		for _, c := range conns {
			c.Close()
		}
	}()
	dial := func() (*net.UDPConn, error) {
		c, err := net.DialUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(cfg.Local, 0)), net.UDPAddrFromAddrPort(cfg.Server))
		if err == nil {
			conns = append(conns, c)
		}
		return c, err
	}
	if len(pool) > 0 && cfg.Rate > 0 {
		c, err := dial()
		if err != nil {
			return FloodCounts{}, fmt.Errorf("attack: flood socket: %w", err)
		}
		wg.Go(func() { floodSend(ctx, []*net.UDPConn{c}, pool, cfg.Rate, &counts[0]) })
	}
	if len(hellos) > 0 && cfg.HelloRate > 0 {
		var cs []*net.UDPConn
		for range max(cfg.HelloPorts, 1) {
			c, err := dial()
			if err != nil {
				return FloodCounts{}, fmt.Errorf("attack: hello flood socket: %w", err)
			}
			cs = append(cs, c)
		}
		wg.Go(func() { floodSend(ctx, cs, hellos, cfg.HelloRate, &counts[1]) })
	}
	<-ctx.Done()
	wg.Wait()
	return FloodCounts{Bogus: counts[0].Load(), Hellos: counts[1].Load()}, nil
}

// floodSend writes pool's datagrams in turn, round the sockets in turn, at
// rate a second until ctx ends, catching up on what a late wake-up missed
// (at most 50 ms of it).
func floodSend(ctx context.Context, conns []*net.UDPConn, pool [][]byte, rate int, sent *atomic.Uint64) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	start := time.Now()
	var n uint64
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			due := uint64(now.Sub(start).Seconds() * float64(rate))
			if behind := uint64(rate / 20); due > n+behind {
				n = due - behind
			}
			for ; n < due; n++ {
				conns[i%len(conns)].Write(pool[i%len(pool)])
				i++
				sent.Add(1)
			}
		}
	}
}

// floodRandom returns n datagrams of random bytes, 1 to 300 long.
func floodRandom(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var l [2]byte
		rand.Read(l[:])
		out[i] = make([]byte, 1+int(binary.BigEndian.Uint16(l[:]))%300)
		rand.Read(out[i])
	}
	return out
}

// floodWire returns n well-formed sealed frames for sessions that do not
// exist: DATA with 1 to 100 bytes of ciphertext, and PING.
func floodWire(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, floodSealedLen)
		rand.Read(b)
		b[0] = floodSealedPing
		if i%2 == 0 {
			b[0] = floodSealedData
			b = append(b, make([]byte, 1+i%100)...)
		}
		out[i] = b
	}
	return out
}

// floodHellos returns n padded HELLOs of the sealed framing, each with its
// own connection id and key, every other one with a forged token.
func floodHellos(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, floodHelloLen)
		b[0], b[1] = floodHello, 2
		rand.Read(b[2 : 2+8+32])
		if i%2 == 1 {
			b[42] = floodTokenLen
			rand.Read(b[43 : 43+floodTokenLen])
		}
		out[i] = b
	}
	return out
}
