package attack

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
)

// udpProxy is an on-path attacker between a victim player and the
// server, on 127.0.0.1: it relays every datagram both ways and keeps a
// copy, and it can send datagrams to the server from the very address
// the server knows the victim by (its own upstream socket).
type udpProxy struct {
	front *net.UDPConn // the victim dials this
	back  *net.UDPConn // connected to the server
	wg    sync.WaitGroup

	mu         sync.Mutex
	victim     netip.AddrPort
	fromServer [][]byte // the first proxyKeep datagrams to the victim
	fromVictim [][]byte // the last proxyKeep datagrams from it
}

const proxyKeep = 256

func startProxy(server string) (*udpProxy, error) {
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	sa, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		front.Close()
		return nil, err
	}
	back, err := net.DialUDP("udp", nil, sa)
	if err != nil {
		front.Close()
		return nil, err
	}
	p := &udpProxy{front: front, back: back}
	p.wg.Add(2)
	go p.up()
	go p.down()
	return p, nil
}

func (p *udpProxy) addr() string { return p.front.LocalAddr().String() }

func (p *udpProxy) up() {
	defer p.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, from, err := p.front.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.mu.Lock()
		p.victim = from
		p.fromVictim = append(p.fromVictim, bytes.Clone(buf[:n]))
		if len(p.fromVictim) > proxyKeep {
			p.fromVictim = p.fromVictim[1:]
		}
		p.mu.Unlock()
		p.back.Write(buf[:n])
	}
}

func (p *udpProxy) down() {
	defer p.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, err := p.back.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.mu.Lock()
		to := p.victim
		if len(p.fromServer) < proxyKeep {
			p.fromServer = append(p.fromServer, bytes.Clone(buf[:n]))
		}
		p.mu.Unlock()
		p.front.WriteToUDPAddrPort(buf[:n], to)
	}
}

// inject sends b to the server from the victim's address, as the server
// sees it.
func (p *udpProxy) inject(b []byte) { p.back.Write(b) }

func (p *udpProxy) close() {
	p.front.Close()
	p.back.Close()
	p.wg.Wait()
}

// seen returns copies of what the proxy kept.
func (p *udpProxy) seen() (fromServer, fromVictim [][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.fromServer...), append([][]byte(nil), p.fromVictim...)
}

// onPathTarget is a UDP host with a legitimate pair playing and a victim
// who plays through an on-path proxy.
type onPathTarget struct {
	*udpTarget
	proxy  *udpProxy
	victim *rewind.Session[testgame.Input]
	id     rewind.PlayerID
	done   chan struct{}
}

func startOnPath(ctx context.Context, cfg Config) (*onPathTarget, error) {
	var opts rewind.HostOptions
	opts.UDP.Plaintext = cfg.Plaintext
	t, err := startUDPTarget(ctx, opts)
	if err != nil {
		return nil, err
	}
	proxy, err := startProxy(t.addr)
	if err != nil {
		t.stop()
		return nil, err
	}
	o := &onPathTarget{udpTarget: t, proxy: proxy, done: make(chan struct{})}
	var uo rewind.UDPOptions
	uo.UDP.Plaintext = t.plaintext
	v, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, proxy.addr(), uo)
	if err != nil {
		o.stop()
		return nil, fmt.Errorf("victim: %w", err)
	}
	v.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(3, tick) })
	o.victim = v
	go func() {
		defer close(o.done)
		_ = v.Run(ctx)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for v.Stats().Verified < 30 {
		if time.Now().After(deadline) || ctx.Err() != nil {
			o.stop()
			return nil, errors.New("victim: verified no tick in 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	o.id, _ = v.Player()
	return o, nil
}

func (o *onPathTarget) stop() {
	if o.victim != nil {
		o.victim.Close()
		<-o.done
	}
	o.proxy.close()
	o.udpTarget.stop()
}

// victimIn reports whether the victim is still playing as itself: its
// session alive, its player id the same, and its verified tick moving on
// past from (given up to 3 s on a loaded machine).
func (o *onPathTarget) victimIn(from uint32) bool {
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		select {
		case <-o.done:
			return false
		default:
		}
		if id, ok := o.victim.Player(); ok && id == o.id && o.victim.Stats().Verified > from+30 {
			return true
		}
	}
	return false
}

// findWelcome looks for a match Welcome (magic and type) anywhere in the
// datagrams seen, as an observer would in clear traffic.
func findWelcome(dgs [][]byte) (codec.Welcome, bool) {
	magic := []byte{0xF5, 'R', 'W', 'N', 0xF2}
	for _, d := range dgs {
		for i := bytes.Index(d, magic); i >= 0; {
			if w, _, err := codec.ParseWelcome(d[i:]); err == nil {
				return w, true
			}
			j := bytes.Index(d[i+1:], magic)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return codec.Welcome{}, false
}

// SniffedCookie: an on-path observer reads the victim's traffic from its
// first datagram, looks for the match's welcome and its rejoin cookie,
// and rejoins with it from its own address. Over plaintext UDP (issue
// 15) it found the cookie and took the victim's seat; sealed, it finds
// nothing to use.
func SniffedCookie(ctx context.Context, cfg Config) Result {
	r := Result{Name: "sniffed_cookie"}
	o, err := startOnPath(ctx, cfg)
	if err != nil {
		r.Err = err
		return r
	}
	defer o.stop()
	fromServer, _ := o.proxy.seen()
	w, found := findWelcome(fromServer)
	r.add("datagrams_read", len(fromServer))
	r.add("cookie_found", found)
	took := false
	if found {
		var a *rewind.Session[testgame.Input]
		var uo rewind.UDPOptions
		uo.UDP.Plaintext = cfg.Plaintext
		uo.Client.Cookie = w.Cookie[:]
		uo.OnUpdate = func(time.Time, rewind.Stats) error {
			if id, ok := a.Player(); ok {
				took = id == o.id
				return errVerified
			}
			return nil
		}
		a, err = rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, o.addr, uo)
		if err == nil {
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			a.SetInputFunc(func(uint32) testgame.Input { return testgame.Input{} })
			_ = a.Run(rctx)
			cancel()
			a.Close()
		}
		r.add("rejoined_as_victim", took)
	}
	in := o.victimIn(o.victim.Stats().Verified)
	r.add("victim_kept_seat", in)
	r.Held = !found && !took && in
	return r
}

// ForgedFromAddress: an on-path attacker that has read the victim's
// datagrams sends, from the victim's own address (as the server sees
// it): replays of them, copies with a byte changed, and goodbyes (the
// transport's BYE, sealed-looking and plain, and the match's goodbye in
// a DATA frame with the victim's connection id and tag). Over plaintext
// UDP (issue 15) forged inputs were taken and a forged goodbye dropped
// the victim; sealed, the transport drops every one of them.
func ForgedFromAddress(ctx context.Context, cfg Config) Result {
	r := Result{Name: "forged_from_address"}
	o, err := startOnPath(ctx, cfg)
	if err != nil {
		r.Err = err
		return r
	}
	defer o.stop()
	_, seen := o.proxy.seen()
	var fromVictim [][]byte // the short frames (DATA, PING, BYE): a repeated HELLO only repeats the WELCOME
	for _, d := range seen {
		if len(d) > 0 && d[0] >= 0x10 {
			fromVictim = append(fromVictim, d)
		}
	}
	before := o.host.Stats()
	var forged int
	send := func(b []byte) { o.proxy.inject(b); forged++ }
	for _, d := range fromVictim { // replays
		send(d)
	}
	for i, d := range fromVictim { // changed inputs, at counters not taken yet
		b := bytes.Clone(d)
		b[len(b)-1] ^= 0x5A
		if b[0] >= 0x20 && len(b) >= 17 {
			binary.BigEndian.PutUint64(b[9:17], 1<<30+uint64(i))
		}
		send(b)
	}
	var sid [8]byte
	tag := uint8(1)
	if len(fromVictim) > 0 && len(fromVictim[0]) >= 9 {
		d := fromVictim[len(fromVictim)-1]
		copy(sid[:], d[1:9])
		if cfg.Plaintext && len(d) > 10 {
			tag = d[10] // the match's short header: the tag is its second byte
		}
	}
	bye := codec.NewBye(tag, codec.ReasonNone)
	matchBye := bye.Append(nil)
	var junk [16]byte
	rand.Read(junk[:])
	ctr := binary.BigEndian.AppendUint64(nil, 1<<40)
	send(append([]byte{0x11}, sid[:]...))                                                          // plain BYE
	send(append(append(append([]byte{0x21}, sid[:]...), ctr...), junk[:]...))                      // sealed-looking BYE
	send(append(append([]byte{0x10}, sid[:]...), matchBye...))                                     // the match's goodbye, plain
	send(append(append(append(append([]byte{0x20}, sid[:]...), ctr...), matchBye...), junk[:]...)) // and sealed-looking
	at := o.victim.Stats().Verified
	in := o.victimIn(at)
	after := o.host.Stats()
	dropped := (after.UDP.BadSeal - before.UDP.BadSeal) + (after.UDP.Replayed - before.UDP.Replayed) +
		(after.UDP.Malformed - before.UDP.Malformed) + (after.UDP.UnknownConn - before.UDP.UnknownConn)
	r.add("forged_sent", forged)
	r.add("dropped_by_transport", dropped)
	r.add("bad_seal", after.UDP.BadSeal-before.UDP.BadSeal)
	r.add("replayed", after.UDP.Replayed-before.UDP.Replayed)
	r.add("leaves", after.Total.Leaves-before.Total.Leaves)
	r.add("victim_kept_seat", in)
	r.Held = in && dropped >= uint64(forged) && after.Total.Leaves == before.Total.Leaves
	return r
}
