package attack

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
)

// rawPeer is an attacker's connection to a rooms relay, speaking its
// messages by hand: it answers the relay's pings (so that it stays) and
// hands every other message on msgs.
type rawPeer struct {
	c    *websocket.Conn
	msgs chan roomproto.Msg
}

// dialPeer dials the relay at url from the loopback address ip.
func dialPeer(ctx context.Context, url string, ip net.IP) (*rawPeer, error) {
	c, err := dialFrom(ctx, url, ip)
	if err != nil {
		return nil, err
	}
	p := &rawPeer{c: c, msgs: make(chan roomproto.Msg, 4096)}
	go func() {
		defer close(p.msgs)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var m roomproto.Msg
			if json.Unmarshal(b, &m) != nil {
				continue
			}
			if m.Type == roomproto.MsgPing {
				p.send(ctx, roomproto.Msg{Type: roomproto.MsgPong, N: m.N})
				continue
			}
			select {
			case p.msgs <- m:
			default: // nobody reads: the attacker does not care
			}
		}
	}()
	return p, nil
}

func (p *rawPeer) send(ctx context.Context, m roomproto.Msg) error {
	return p.c.Write(ctx, websocket.MessageText, m.Encode())
}

// next returns the relay's next message, or one of type "closed" when the
// connection ended, or ctx's error.
func (p *rawPeer) next(ctx context.Context) (roomproto.Msg, error) {
	select {
	case m, ok := <-p.msgs:
		if !ok {
			return roomproto.Msg{Type: "closed"}, nil
		}
		return m, nil
	case <-ctx.Done():
		return roomproto.Msg{}, ctx.Err()
	}
}

// ask sends m and returns the relay's answer.
func (p *rawPeer) ask(ctx context.Context, m roomproto.Msg) (roomproto.Msg, error) {
	if err := p.send(ctx, m); err != nil {
		return roomproto.Msg{}, err
	}
	return p.next(ctx)
}

func (p *rawPeer) close() { p.c.CloseNow() }

// served is a real match server (rooms.Serve of the test game) running
// until stop.
type served struct {
	s    *rooms.Served[testgame.Input]
	stop func()
}

func serveRooms(ctx context.Context, opts rooms.ServeOptions) (*served, error) {
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(ctx)
	}()
	return &served{s: s, stop: func() {
		cancel()
		<-done
		s.Close()
	}}, nil
}

// RogueMatchServer: issue 30's item 1. On a relay with a server token,
// attackers register as on-demand match servers of 1,024 slots: one
// with no proof, one with a proof of another connection (as seen on
// ws://); they answer the relay's pings and nothing else. The real
// server, with the token, has 4 slots; a lobby opens 3 rooms. Before,
// the relay sent every open to the server with most free slots, the
// attacker, which then failed the opens or hosted the rooms and got
// their players' signaling. It holds if the 3 opens succeeded on the
// real server and the attackers heard nothing but their refusal.
func RogueMatchServer(ctx context.Context, cfg Config) Result {
	r := Result{Name: "rogue_match_server"}
	token := make([]byte, 32)
	rand.Read(token)
	rc := relay.RoomConfig{ServerToken: token}
	if cfg.Undefended {
		rc.ServerToken = nil
	}
	t, err := startRelay(netutil.HTTPLimits{}, rc)
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	var rogues []*rawPeer
	defer func() {
		for _, p := range rogues {
			p.close()
		}
	}()
	registered := 0
	for _, auth := range []string{"", roomproto.ServerProof(token, "the nonce of an earlier connection")} {
		p, err := dialPeer(ctx, t.url, net.IPv4(127, 0, 10, 1))
		if err != nil {
			r.Err = err
			return r
		}
		rogues = append(rogues, p)
		m, err := p.ask(ctx, roomproto.Msg{Type: roomproto.MsgServe, V: roomproto.Version, Slots: 1024, OnDemand: true, Auth: auth})
		if err != nil {
			r.Err = err
			return r
		}
		if m.Type == roomproto.MsgServing {
			registered++
		}
	}
	srv, err := serveRooms(ctx, rooms.ServeOptions{Relay: t.url, MaxMatches: 4, OnDemand: true, ServerToken: token})
	if err != nil {
		r.Err = fmt.Errorf("the real server: %w", err)
		return r
	}
	defer srv.stop()
	opened := 0
	for range 3 {
		octx, cancel := context.WithTimeout(ctx, 15*time.Second)
		_, err := roomclient.OpenRoom(octx, t.url, roomclient.OpenOptions{})
		cancel()
		if err != nil {
			r.add("open_error", err.Error())
			break
		}
		opened++
	}
	heard := 0
	for _, p := range rogues {
		for len(p.msgs) > 0 {
			if m := <-p.msgs; m.Type != roomproto.MsgError {
				heard++ // an open, a join's signaling
			}
		}
	}
	onReal := len(srv.s.Rooms())
	r.add("rogues", len(rogues))
	r.add("rogues_registered", registered)
	r.add("opens", 3)
	r.add("opened", opened)
	r.add("rooms_on_real_server", onReal)
	r.add("rogue_messages_heard", heard)
	r.Held = opened == 3 && onReal == 3 && heard == 0 && registered == 0
	return r
}

// HoardedSlots: issue 30's item 3. An attacker asks for every slot of an
// on-demand match server, first on one connection, then from as many
// addresses as the per-address open limit makes it use, and joins each
// room once at the relay (never starting its match), holding the
// joiners. Before, a room whose match never started never ended: 64 of
// 64 slots were still in use after 130 s. The unused timeout is cut to
// seconds here (its default is 2 minutes). It holds if one connection
// got at most the relay's 4 opens, the hoard made a lobby's open fail
// "full", and after the timeout every slot was free at both ends and a
// lobby's open succeeded.
func HoardedSlots(ctx context.Context, cfg Config) Result {
	r := Result{Name: "hoarded_slots"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	slots := pick(cfg, 8, 64)
	unused := pick(cfg, time.Second, 5*time.Second)
	opt := unused
	if cfg.Undefended {
		opt = -1
	}
	srv, err := serveRooms(ctx, rooms.ServeOptions{Relay: t.url, MaxMatches: slots, OnDemand: true, UnusedTimeout: opt})
	if err != nil {
		r.Err = err
		return r
	}
	defer srv.stop()
	var peers []*rawPeer
	defer func() {
		for _, p := range peers {
			p.close()
		}
	}()
	dial := func(ip net.IP) (*rawPeer, error) {
		p, err := dialPeer(ctx, t.url, ip)
		if err == nil {
			peers = append(peers, p)
		}
		return p, err
	}
	codes, oneConn, addrs, err := hoardOpens(ctx, slots, dial)
	if err != nil {
		r.Err = err
		return r
	}
	for i, code := range codes { // one joiner a room, 8 an address (the relay's JoiningPerAddr)
		p, err := dial(net.IPv4(127, 0, 7, byte(1+i/8)))
		if err != nil {
			r.Err = err
			return r
		}
		if m, err := p.ask(ctx, roomproto.Msg{Type: roomproto.MsgJoin, V: roomproto.V1, Code: code}); err != nil || m.Type != roomproto.MsgJoined {
			r.Err = fmt.Errorf("joining %s: %v %+v", code, err, m)
			return r
		}
	}
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = roomclient.OpenRoom(octx, t.url, roomclient.OpenOptions{})
	cancel()
	lobbyRefused := errors.Is(err, roomproto.ErrFull)
	start := time.Now()
	freed := false
	for deadline := start.Add(3*unused + 5*time.Second); time.Now().Before(deadline) && ctx.Err() == nil; {
		if len(srv.s.Rooms()) == 0 && t.rooms.MatchServers().Used == 0 {
			freed = true
			break
		}
		sleepCtx(ctx, 20*time.Millisecond)
	}
	freedAfter := time.Since(start)
	octx, cancel = context.WithTimeout(ctx, 10*time.Second)
	_, err = roomclient.OpenRoom(octx, t.url, roomclient.OpenOptions{})
	cancel()
	openAfter := err == nil
	r.add("slots", slots)
	r.add("opens_one_connection", oneConn)
	r.add("addresses", addrs)
	r.add("rooms_hoarded", len(codes))
	r.add("lobby_refused_full", lobbyRefused)
	r.add("unused_timeout_s", unused.Seconds())
	r.add("freed", freed)
	r.add("freed_after_s", freedAfter.Seconds())
	r.add("lobby_open_after", openAfter)
	r.Held = oneConn <= 4 && len(codes) == slots && lobbyRefused && freed && openAfter
	return r
}

// hoardOpens opens on-demand rooms until slots are taken: as many as one
// connection may, then from one address after another (127.0.6.2...)
// until each is rate-limited. It returns the codes, the opens the first
// connection got and the addresses used.
func hoardOpens(ctx context.Context, slots int, dial func(net.IP) (*rawPeer, error)) (codes []string, oneConn, addrs int, err error) {
	open := roomproto.Msg{Type: roomproto.MsgOpen, V: roomproto.Version}
	p, err := dial(net.IPv4(127, 0, 6, 1))
	if err != nil {
		return nil, 0, 0, err
	}
	for range slots {
		m, err := p.ask(ctx, open)
		if err != nil || m.Type != roomproto.MsgOpened {
			break
		}
		oneConn++
		codes = append(codes, m.Code)
	}
	addrs = 1
	for a := 2; len(codes) < slots && a < 250 && ctx.Err() == nil; a++ {
		addrs++
	perAddr:
		for len(codes) < slots {
			p, err := dial(net.IPv4(127, 0, 6, byte(a)))
			if err != nil {
				break
			}
			m, err := p.ask(ctx, open)
			p.close()
			switch {
			case err == nil && m.Type == roomproto.MsgOpened:
				codes = append(codes, m.Code)
			default: // rate_limited: the next address
				break perAddr
			}
		}
	}
	return codes, oneConn, addrs, nil
}

// RoomCaps: issue 30's item 9. From one address (two at full size)
// connections register as match servers (no token needed on this relay)
// and host rooms until refused. Before, 64 connections × 1,024 slots
// from 2 addresses held 92,160 live rooms and the relay grew from 19 to
// 130 MB. It holds if no address got more than the relay's RoomsPerAddr
// (1,024) and a player from another address still hosted a room.
func RoomCaps(ctx context.Context, cfg Config) Result {
	r := Result{Name: "room_caps"}
	rc := relay.RoomConfig{}.WithDefaults()
	if cfg.Undefended {
		rc.RoomsPerAddr = 1 << 30
	}
	t, err := startRelay(netutil.HTTPLimits{}, rc)
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	addrs := pick(cfg, 1, 2)
	conns := pick(cfg, 2, 4)
	var peers []*rawPeer
	defer func() {
		for _, p := range peers {
			p.close()
		}
	}()
	hosted := make([]int, addrs)
	refused := 0
	start := time.Now()
	for a := range addrs {
		for range conns {
			p, err := dialPeer(ctx, t.url, net.IPv4(127, 0, 8, byte(a+1)))
			if err != nil {
				r.Err = err
				return r
			}
			peers = append(peers, p)
			m, err := p.ask(ctx, roomproto.Msg{Type: roomproto.MsgServe, V: roomproto.Version, Slots: rc.ServerSlots})
			if err != nil || m.Type != roomproto.MsgServing {
				r.Err = fmt.Errorf("serve: %v %+v", err, m)
				return r
			}
			h, n, closed := hostSlots(ctx, p, m.Slots)
			hosted[a] += h
			refused += n
			if closed {
				r.add("connection_closed", true)
			}
		}
	}
	secs := time.Since(start).Seconds()
	_, live := t.rooms.Stats()
	h, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: t.url})
	if err == nil {
		h.Close()
	}
	r.add("addresses", addrs)
	r.add("server_connections_per_address", conns)
	r.add("rooms_asked", addrs*conns*rc.ServerSlots)
	r.add("rooms_hosted_per_address", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(hosted)), ","), "[]"))
	r.add("refused", refused)
	r.add("rooms_per_addr_cap", rc.RoomsPerAddr)
	r.add("relay_rooms", live)
	r.add("seconds", secs)
	r.add("player_hosted", err == nil)
	r.Held = err == nil
	for _, n := range hosted {
		r.Held = r.Held && n <= relay.RoomConfig{}.WithDefaults().RoomsPerAddr
	}
	return r
}

// hostSlots asks p's relay to host n rooms, 128 ahead of the answers
// (the relay closes a connection 256 messages behind as slow), and
// counts the rooms hosted and refused; closed says the relay closed p
// before all n were answered.
func hostSlots(ctx context.Context, p *rawPeer, n int) (hosted, refused int, closed bool) {
	window := make(chan struct{}, 128)
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for range n {
			select {
			case window <- struct{}{}:
			case <-hctx.Done():
				return
			}
			if p.send(hctx, roomproto.Msg{Type: roomproto.MsgHost, V: roomproto.V1}) != nil {
				return
			}
		}
	}()
	for range n {
		m, err := p.next(ctx)
		if err != nil || m.Type == "closed" {
			return hosted, refused, true
		}
		<-window
		if m.Type == roomproto.MsgHosted {
			hosted++
		} else {
			refused++
		}
	}
	return hosted, refused, false
}
