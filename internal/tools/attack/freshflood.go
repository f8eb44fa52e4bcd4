package attack

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
)

// HandshakeFreshFlood: issue 43's item 2. Never-seen loopback addresses
// (127.8.0.0/16 on) finish a UDP handshake each, 150 a second (no
// cryptography on the attacker's side: one ephemeral key reused; each
// address answers its RETRY once and is never used again), against the
// server's default total budget of 100 handshakes a second, for 30 s
// (short: 3 s); meanwhile a player from one address (127.0.7.1) joins
// again and again, and once the flood stops it joins 6 times (short: 3)
// one after the other, each a verified tick, dialing again if a dial
// gives up, as `rewind play` run again would. Before, a new address's
// HELLO went to the front of the queue, newest first, and the flood's
// stale HELLOs stayed queued (4,096) after it: issue 43 saw 1 of 5 joins
// from fresh addresses during it and 2 of 6 in the 25 s after. It holds
// if every join after the flood succeeds, each within 10 s.
func HandshakeFreshFlood(ctx context.Context, cfg Config) Result {
	r := Result{Name: "handshake_fresh_flood"}
	t, err := startUDPTarget(ctx, rewind.HostOptions{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	to, err := netip.ParseAddrPort(t.addr)
	if err != nil {
		r.Err = err
		return r
	}
	opened0 := t.udp.Stats().Opened
	floodFor, joinsAfter := pick(cfg, 3*time.Second, 30*time.Second), pick(cfg, 3, 6)
	fctx, stop := context.WithTimeout(ctx, floodFor)
	defer stop()
	var wg sync.WaitGroup
	var sent int
	var floodErr error
	wg.Go(func() { sent, floodErr = freshHandshakes(fctx, to, 150) })
	const player = "127.0.7.1:0"
	during, duringOK := 0, 0
	var duringWorst time.Duration
	for fctx.Err() == nil {
		during++
		if d, err := t.joinFrom(fctx, player, 20*time.Second); err == nil {
			duringOK++
			duringWorst = max(duringWorst, d)
		}
	}
	wg.Wait()
	if floodErr != nil {
		r.Err = floodErr
		return r
	}
	floodOpened := t.udp.Stats().Opened - opened0
	after := 0
	var afterWorst time.Duration
	for range joinsAfter {
		if d, err := t.joinFrom(ctx, player, 10*time.Second); err == nil {
			after++
			afterWorst = max(afterWorst, d)
		}
	}
	r.add("flood_seconds", floodFor.Seconds())
	r.add("fresh_addresses", sent)
	r.add("handshakes_during", floodOpened)
	r.add("handshakes_dropped", t.udp.Stats().HandshakesDropped)
	r.add("joins_during", fmt.Sprintf("%d/%d", duringOK, during))
	r.add("worst_join_during_ms", duringWorst.Milliseconds())
	r.add("joins_after", fmt.Sprintf("%d/%d", after, joinsAfter))
	r.add("worst_join_after_ms", afterWorst.Milliseconds())
	r.Held = after == joinsAfter
	return r
}

// joinFrom joins a legitimate player from local (an address:port to
// bind) until it verifies a tick, dialing again when a dial gives up (5
// s), for up to limit; it returns how long that took.
func (t *udpTarget) joinFrom(ctx context.Context, local string, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		var o rewind.UDPOptions
		o.UDP.LocalAddr = local
		o.OnUpdate = func(_ time.Time, st rewind.Stats) error {
			if st.Verified > 0 {
				return errVerified
			}
			return nil
		}
		s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, t.addr, o)
		if err != nil {
			if ctx.Err() != nil {
				return 0, err
			}
			continue // the dial gave up: dial again
		}
		s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(1, tick) })
		err = s.Run(ctx)
		s.Close()
		if errors.Is(err, errVerified) {
			return time.Since(start), nil
		}
		return 0, fmt.Errorf("legit joiner: %w", err)
	}
}

// freshHandshakes is the attacker of issue 43's item 2: rate a second,
// a never-seen loopback address (127.8.0.1 on) sends a HELLO of the
// sealed framing with a reused ephemeral key (no crypto on its side),
// answers the RETRY with the HELLO and its token (so that the server
// queues a handshake for it), and goes. It returns when ctx ends, with
// how many addresses it used.
func freshHandshakes(ctx context.Context, to netip.AddrPort, rate int) (int, error) {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return 0, err
	}
	e := k.PublicKey().Bytes()
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	start, n := time.Now(), 0
	for {
		select {
		case <-ctx.Done():
			return n, nil
		case <-tick.C:
		}
		for due := int(time.Since(start).Seconds() * float64(rate)); n < due; {
			n++
			ip := net.IPv4(127, 8+byte(n>>16), byte(n>>8), byte(n))
			if byte(n) == 0 {
				continue // 127.x.y.0: no address of its own
			}
			c, err := net.ListenUDP("udp", &net.UDPAddr{IP: ip})
			if err != nil {
				return n, err
			}
			wg.Go(func() {
				defer c.Close()
				freshHello(c, to, uint64(n), e)
			})
		}
	}
}

// freshHello sends c's HELLO with key e and answers the RETRY once
// (within a second).
func freshHello(c *net.UDPConn, to netip.AddrPort, cid uint64, e []byte) {
	out := make([]byte, floodHelloLen)
	hello := func(token []byte) []byte {
		clear(out)
		out[0], out[1] = floodHello, 2
		binary.BigEndian.PutUint64(out[2:10], cid)
		copy(out[10:42], e)
		out[42] = byte(len(token))
		copy(out[43:], token)
		return out
	}
	if _, err := c.WriteToUDPAddrPort(hello(nil), to); err != nil {
		return
	}
	buf := make([]byte, 2048)
	c.SetReadDeadline(time.Now().Add(time.Second))
	n, _, err := c.ReadFromUDPAddrPort(buf)
	// A RETRY: type, version, cid(8), token length, token.
	if err == nil && n >= 11 && buf[0] == floodRetry && int(buf[10]) == n-11 {
		c.WriteToUDPAddrPort(hello(buf[11:n]), to)
	}
}
