package attack

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
)

// floodAddrs is how many loopback addresses HandshakeFlood finishes
// handshakes from (127.0.5.1 to 127.0.5.250).
const floodAddrs = 250

// HandshakeFlood: issue 30's item 4. 250 addresses finish UDP handshakes
// with the server as its attacker did (cheapHandshakes: one ephemeral key
// reused, no crypto on its side, 20,000 HELLOs a second, 40,000 at full
// size), never saying a word in their sessions, while a pair plays; 6
// new players then join one after the other. Before, the handshakes ran
// on the server's one reader goroutine and filled the unproven table: 2
// of 6 new players got in over 40 s. It holds if 5 of 6 join (each
// within 20 s, dialing again if a dial gives up: a verified tick). The
// pair's late inputs per 1,000 player-ticks, quiet and flooded, are
// figures: on a shared machine their noise is larger than any rise.
func HandshakeFlood(ctx context.Context, cfg Config) Result {
	r := Result{Name: "handshake_flood"}
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
	quiet := pick(cfg, time.Second, 5*time.Second)
	lateQuiet := t.lateWhile(ctx, func() { sleepCtx(ctx, quiet) })
	opened0 := t.udp.Stats().Opened
	fctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var hellos uint64
	var floodErr error
	floodStart := time.Now()
	wg.Go(func() { hellos, floodErr = cheapHandshakes(fctx, to, pick(cfg, 20000, 40000)) })
	joined := 0
	var worst time.Duration
	start := time.Now()
	lateFlood := t.lateWhile(ctx, func() {
		sleepCtx(ctx, quiet/2) // the flood under way
		for range 6 {
			// A player whose dial gives up (5 s) dials again, as
			// `rewind play` run again would, for up to 20 s.
			for begun := time.Now(); time.Since(begun) < 20*time.Second && ctx.Err() == nil; {
				if _, err := t.joinTimed(ctx, 20*time.Second-time.Since(begun)); err == nil {
					joined++
					worst = max(worst, time.Since(begun))
					break
				}
			}
		}
	})
	secs := time.Since(start).Seconds()
	stop()
	wg.Wait()
	floodSecs := time.Since(floodStart).Seconds()
	if floodErr != nil {
		r.Err = floodErr
		return r
	}
	st := t.udp.Stats()
	r.add("addresses", floodAddrs)
	r.add("seconds", secs)
	r.add("hellos_per_s", float64(hellos)/floodSecs)
	r.add("attacker_handshakes", st.Opened-opened0-uint64(joined))
	r.add("handshakes_per_s", float64(st.Opened-opened0)/secs)
	r.add("handshakes_dropped", st.HandshakesDropped)
	r.add("new_players_joined", fmt.Sprintf("%d/6", joined))
	r.add("worst_join_ms", worst.Milliseconds())
	r.add("pair_late_per_1000_quiet", lateQuiet)
	r.add("pair_late_per_1000_flood", lateFlood)
	r.Held = joined >= 5
	return r
}

// lateWhile runs f and returns the match's late inputs per 1,000
// player-ticks meanwhile.
func (t *udpTarget) lateWhile(ctx context.Context, f func()) float64 {
	s0 := t.host.Stats().Total
	f()
	s1 := t.host.Stats().Total
	if s1.PlayerTicks == s0.PlayerTicks {
		return 0
	}
	return 1000 * float64(s1.LateInputs-s0.LateInputs) / float64(s1.PlayerTicks-s0.PlayerTicks)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// cheapHandshakes is the attacker of issue 30's item 4: from floodAddrs
// loopback addresses (127.0.5.x) it sends HELLOs of the sealed framing,
// rate a second round robin, each with a new connection id and one
// ephemeral key for all (no crypto on its side), and answers each RETRY
// with the HELLO and its token, so that the server does a handshake's
// public-key work for each. It returns when ctx ends, with the
// tokenless HELLOs it sent.
func cheapHandshakes(ctx context.Context, to netip.AddrPort, rate int) (uint64, error) {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return 0, err
	}
	e := k.PublicKey().Bytes()
	hello := func(b []byte, cid uint64, token []byte) []byte {
		clear(b)
		b[0], b[1] = floodHello, 2
		binary.BigEndian.PutUint64(b[2:10], cid)
		copy(b[10:42], e)
		b[42] = byte(len(token))
		copy(b[43:], token)
		return b
	}
	var conns []*net.UDPConn
	var wg sync.WaitGroup
	defer func() {
		for _, c := range conns {
			c.Close() // ends the readers
		}
		wg.Wait()
	}()
	for a := range floodAddrs {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 5, byte(a+1))})
		if err != nil {
			return 0, err
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		wg.Go(func() {
			buf, out := make([]byte, 2048), make([]byte, floodHelloLen)
			for {
				n, _, err := c.ReadFromUDPAddrPort(buf)
				if err != nil {
					return // closed
				}
				// A RETRY: type, version, cid(8), token length, token.
				if n >= 11 && buf[0] == floodRetry && int(buf[10]) == n-11 {
					c.WriteToUDPAddrPort(hello(out, binary.BigEndian.Uint64(buf[2:10]), buf[11:n]), to)
				}
			}
		})
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	out := make([]byte, floodHelloLen)
	var cid uint64
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return cid, nil
		case <-tick.C:
		}
		// As many as the rate owes since the start: a tick that came late
		// (a loaded machine) sends its share too.
		for due := uint64(time.Since(start).Seconds() * float64(rate)); cid < due; {
			cid++
			conns[cid%floodAddrs].WriteToUDPAddrPort(hello(out, cid, nil), to)
		}
	}
}
