package relay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestRedisFleetThrottle: an address that used up its failed joins
// guessing codes through one relay is throttled through every relay of
// the fleet, from new connections.
func TestRedisFleetThrottle(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg := RoomConfig{FailedJoinBurst: 3, FailedJoinRate: 0.01}
	r1, _, _ := startFleetRelayWith(t, url, cfg, roomdir.RedisConfig{})
	r2, dir2, _ := startFleetRelayWith(t, url, cfg, roomdir.RedisConfig{})
	for i := range 3 {
		ws := dialRaw(t, r1.url)
		writeRaw(t, ws, fmt.Sprintf(`{"type":"join","v":1,"code":"ZZZZZ%c"}`, roomcode.Alphabet[i]))
		rawError(t, ws, roomproto.ErrCodeNoRoom, 0)
	}
	// r1 counts a failed join in Redis after its reply has gone (outside
	// the hub's lock): the fleet has the third once those writes are done.
	flushDirectory(t, r1)
	if !dir2.JoinThrottled(failKey("127.0.0.1"), time.Now(), roomdir.FailLimits{Rate: cfg.FailedJoinRate, Burst: cfg.FailedJoinBurst}) {
		t.Fatal("the fleet did not count 3 failed joins from 127.0.0.1")
	}
	for i, r := range []*testRelay{r1, r2} {
		ws := dialRaw(t, r.url)
		writeRaw(t, ws, `{"type":"join","v":1,"code":"ZZZZZZ"}`)
		rawError(t, ws, roomproto.ErrCodeRateLimited, websocket.StatusPolicyViolation)
		if st := r.srv.RoomStats(); st.JoinsThrottled != 1 {
			t.Errorf("relay %d: %d joins throttled, want 1", i+1, st.JoinsThrottled)
		}
	}
}

// rawHost hosts a room over a bare WebSocket at url, answering the
// relay's pings; the other messages it gets come on the returned channel.
func rawHost(t *testing.T, url string) (code string, msgs <-chan roomproto.Msg) {
	t.Helper()
	ws := dialRaw(t, url)
	writeRaw(t, ws, `{"type":"host","v":1}`)
	_, b, err := ws.Read(testCtx(t))
	m, _ := decodeReply(b)
	if err != nil || m.Type != roomproto.MsgHosted {
		t.Fatalf("host: %s %v", b, err)
	}
	return m.Code, readPonging(ws)
}

// nextRaw returns the next message of msgs.
func nextRaw(t *testing.T, msgs <-chan roomproto.Msg) roomproto.Msg {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-testCtx(t).Done():
		t.Fatal("no message")
		return roomproto.Msg{}
	}
}

// TestRedisFleetDeadRelay: a relay that dies without a word (its Redis
// connection gone first) stops refreshing its liveness; the relay of a
// room's host then drops the players it stood in for that relay (the
// host hears "left") and keeps those of a live relay and the room.
func TestRedisFleetDeadRelay(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg, rcfg := RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 2 * time.Second}
	r1, dir1, _ := startFleetRelayWith(t, url, cfg, rcfg)
	r2, _, crash2 := startFleetRelayWith(t, url, cfg, rcfg)
	r3, _, _ := startFleetRelayWith(t, url, cfg, rcfg)
	code, host := rawHost(t, r1.url)
	for i, r := range []*testRelay{r2, r3} {
		ws := dialRaw(t, r.url)
		writeRaw(t, ws, fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code))
		_, b, err := ws.Read(testCtx(t))
		if m, _ := decodeReply(b); err != nil || m.Type != roomproto.MsgJoined || m.ID != fmt.Sprintf("p%d", i+1) {
			t.Fatalf("join through relay %d: %s %v", i+2, b, err)
		}
		if m := nextRaw(t, host); m.Type != roomproto.MsgPlayer {
			t.Fatalf("host got %+v, want player", m)
		}
		go func() { // reads until the relay closes it (the close handshake)
			for {
				if _, _, err := ws.Read(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	start := time.Now()
	crash2()
	if m := nextRaw(t, host); m.Type != roomproto.MsgLeft || m.ID != "p1" {
		t.Fatalf("host got %+v, want p1 (through the dead relay) left", m)
	}
	t.Logf("the dead relay's player left after %v (TTL %v)", time.Since(start), rcfg.TTL)
	r1.srv.hub.mu.Lock()
	standIns := len(r1.srv.hub.fleet.standIns)
	r1.srv.hub.mu.Unlock()
	if standIns != 1 {
		t.Errorf("%d stand-ins left at the host's relay, want 1 (the live relay's player)", standIns)
	}
	if st := r1.srv.RoomStats(); st.StandIns != 1 || st.DeadRelayDrops != 1 {
		t.Errorf("stats %+v, want 1 stand-in and 1 dead relay's drop", st)
	}
	if rec, ok, _ := dir1.Lookup(code, time.Now()); !ok || rec.Ended || rec.Owner != dir1.Self() {
		t.Errorf("the room in the directory: %+v %v", rec, ok)
	}
}

// rawJoin joins code through url over a bare WebSocket and returns it
// with the "joined" answer; the later messages come on msgs. It never
// reports a data channel open.
func rawJoin(t *testing.T, url, code string) (ws *websocket.Conn, joined roomproto.Msg, msgs <-chan roomproto.Msg) {
	t.Helper()
	ws = dialRaw(t, url)
	writeRaw(t, ws, fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code))
	ch := rawReader(ws)
	joined = nextRaw(t, ch)
	if joined.Type != roomproto.MsgJoined {
		t.Fatalf("join through %s: %+v", url, joined)
	}
	return ws, joined, ch
}

// rawReader hands ws's messages to a channel until it closes.
func rawReader(ws *websocket.Conn) <-chan roomproto.Msg {
	ch := make(chan roomproto.Msg, 64)
	go func() {
		defer close(ch)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			m, _ := decodeReply(b)
			ch <- m
		}
	}()
	return ch
}

// rawMigratingHost hosts a room for migration at url over a bare
// WebSocket (its pings left unanswered: the test closes it first).
func rawMigratingHost(t *testing.T, url string) (ws *websocket.Conn, hosted roomproto.Msg) {
	t.Helper()
	ws = dialRaw(t, url)
	writeRaw(t, ws, `{"type":"host","v":1,"migrate":true}`)
	_, b, err := ws.Read(testCtx(t))
	hosted, _ = decodeReply(b)
	if err != nil || hosted.Type != roomproto.MsgHosted {
		t.Fatalf("host: %s %v", b, err)
	}
	return ws, hosted
}

// TestRedisFleetClaim: players of a migrating room joined through two
// other relays than its host's claim it when the host goes; each claim is
// decided at the room's relay (forwarded like a join), so the first
// claimant hosts it and the second is introduced to it: one host.
func TestRedisFleetClaim(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	r1, _, _ := startFleetRelayWith(t, url, RoomConfig{}, roomdir.RedisConfig{})
	r2, _, _ := startFleetRelayWith(t, url, RoomConfig{}, roomdir.RedisConfig{})
	r3, _, _ := startFleetRelayWith(t, url, RoomConfig{}, roomdir.RedisConfig{})
	host, hosted := rawMigratingHost(t, r1.url)
	p1, _, m1 := rawJoin(t, r2.url, hosted.Code)
	p2, _, m2 := rawJoin(t, r3.url, hosted.Code)
	host.CloseNow()
	for i, ch := range []<-chan roomproto.Msg{m1, m2} {
		if m := nextRaw(t, ch); m.Type != roomproto.MsgHostLost {
			t.Fatalf("player %d got %+v, want host_lost", i+1, m)
		}
	}
	// Each claims on a connection of its own, as roomclient.ClaimRoom does.
	p1.CloseNow()
	p2.CloseNow()
	claim := fmt.Sprintf(`{"type":"claim","v":1,"code":%q,"key":%q}`, hosted.Code, hosted.Key)
	c1 := dialRaw(t, r2.url)
	n1 := rawReader(c1)
	writeRaw(t, c1, claim)
	if m := nextRaw(t, n1); m.Type != roomproto.MsgHosted || m.Claim != roomproto.ClaimHost {
		t.Fatalf("first claimant got %+v, want hosted (claim host)", m)
	}
	c2 := dialRaw(t, r3.url)
	n2 := rawReader(c2)
	writeRaw(t, c2, claim)
	if m := nextRaw(t, n2); m.Type != roomproto.MsgJoined || m.Claim != roomproto.ClaimNew {
		t.Fatalf("second claimant got %+v, want joined (claim new): two hosts", m)
	}
	if m := nextRaw(t, n1); m.Type != roomproto.MsgPlayer {
		t.Fatalf("the new host got %+v, want the second claimant", m)
	}
}

// TestRedisFleetClaimDeadRelay: the relay of a migrating room dies; the
// connection forwarded to it by another relay is closed; its player
// claims the room through a live relay, which adopts it (the directory
// names it the owner) and makes it the host; a player claiming through a
// third relay is introduced to it there.
func TestRedisFleetClaimDeadRelay(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg, rcfg := RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 2 * time.Second}
	r1, _, crash1 := startFleetRelayWith(t, url, cfg, rcfg)
	r2, dir2, _ := startFleetRelayWith(t, url, cfg, rcfg)
	r3, _, _ := startFleetRelayWith(t, url, cfg, rcfg)
	host, hosted := rawMigratingHost(t, r1.url)
	rawReader(host) // reads until relay 1 closes it
	_, _, m1 := rawJoin(t, r2.url, hosted.Code)
	crash1()
	for range m1 { // the forwarded connection is closed once relay 1 is found dead
	}
	claim := fmt.Sprintf(`{"type":"claim","v":1,"code":%q,"key":%q}`, hosted.Code, hosted.Key)
	p1 := dialRaw(t, r2.url)
	c1 := rawReader(p1)
	writeRaw(t, p1, claim)
	if m := nextRaw(t, c1); m.Type != roomproto.MsgHosted || m.Claim != roomproto.ClaimHost {
		t.Fatalf("claimant at a live relay got %+v, want hosted (claim host)", m)
	}
	if rec, ok, _ := dir2.Lookup(hosted.Code, time.Now()); !ok || rec.Owner != dir2.Self() {
		t.Fatalf("the directory after the claim: %+v %v, want owned by relay 2", rec, ok)
	}
	p2 := dialRaw(t, r3.url)
	c2 := rawReader(p2)
	writeRaw(t, p2, claim)
	if m := nextRaw(t, c2); m.Type != roomproto.MsgJoined || m.Claim != roomproto.ClaimNew {
		t.Fatalf("second claimant got %+v, want joined (claim new)", m)
	}
}
