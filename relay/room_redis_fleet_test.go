package relay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testutil"
)

// TestRedisFailBucket: the fleet's failed-join bucket of an address is
// one for every directory of a Redis, refills at its rate in the callers'
// time (a caller whose clock is behind refills nothing), and its key
// expires once the bucket would be full again.
func TestRedisFailBucket(t *testing.T) {
	url := testutil.StartRedis(t)
	ctx := testCtx(t)
	a, err := NewRedisRoomDirectory(ctx, url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedisRoomDirectory(ctx, url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const rate, burst = 2.0, 3
	for i := range burst {
		if a.joinThrottled("10.0.0.9", t0, rate, burst) {
			t.Fatalf("throttled after %d failed joins of %d", i, burst)
		}
		a.joinFailed("10.0.0.9", t0, rate, burst)
	}
	if !b.joinThrottled("10.0.0.9", t0, rate, burst) {
		t.Fatal("another relay does not see the address's failed joins")
	}
	if b.joinThrottled("10.0.0.8", t0, rate, burst) {
		t.Fatal("another address is throttled")
	}
	if !b.joinThrottled("10.0.0.9", t0.Add(-time.Second), rate, burst) {
		t.Fatal("a clock behind refilled the bucket")
	}
	if b.joinThrottled("10.0.0.9", t0.Add(500*time.Millisecond), rate, burst) {
		t.Fatal("no token back after 1/rate")
	}
	// Empty: full again in burst/rate = 1.5 s, then a second of margin.
	pttl := a.rdb.PTTL(ctx, a.failKey("10.0.0.9")).Val()
	if pttl <= 0 || pttl > 2500*time.Millisecond {
		t.Fatalf("the bucket's key expires in %v, want (0, 2.5 s]", pttl)
	}
}

// TestRedisFleetThrottle: an address that used up its failed joins
// guessing codes through one relay is throttled through every relay of
// the fleet, from new connections.
func TestRedisFleetThrottle(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg := RoomConfig{FailedJoinBurst: 3, FailedJoinRate: 0.01}
	r1, _, _ := startFleetRelayWith(t, url, cfg, RedisConfig{})
	r2, _, _ := startFleetRelayWith(t, url, cfg, RedisConfig{})
	for i := range 3 {
		ws := dialRaw(t, r1.url)
		writeRaw(t, ws, fmt.Sprintf(`{"type":"join","v":1,"code":"ZZZZZ%c"}`, RoomCodeAlphabet[i]))
		rawError(t, ws, RoomErrNoRoom, 0)
	}
	for i, r := range []*testRelay{r1, r2} {
		ws := dialRaw(t, r.url)
		writeRaw(t, ws, `{"type":"join","v":1,"code":"ZZZZZZ"}`)
		rawError(t, ws, RoomErrRateLimited, websocket.StatusPolicyViolation)
		if st := r.srv.RoomStats(); st.JoinsThrottled != 1 {
			t.Errorf("relay %d: %d joins throttled, want 1", i+1, st.JoinsThrottled)
		}
	}
}

// rawHost hosts a room over a bare WebSocket at url, answering the
// relay's pings; the other messages it gets come on the returned channel.
func rawHost(t *testing.T, url string) (code string, msgs <-chan roomMsg) {
	t.Helper()
	ws := dialRaw(t, url)
	writeRaw(t, ws, `{"type":"host","v":1}`)
	_, b, err := ws.Read(testCtx(t))
	m, _ := decodeReply(b)
	if err != nil || m.Type != RoomMsgHosted {
		t.Fatalf("host: %s %v", b, err)
	}
	ch := make(chan roomMsg, 64)
	go func() {
		defer close(ch)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			m, _ := decodeReply(b)
			if m.Type == RoomMsgPing {
				_ = ws.Write(context.Background(), websocket.MessageText, []byte(fmt.Sprintf(`{"type":"pong","n":%d}`, m.N)))
				continue
			}
			ch <- m
		}
	}()
	return m.Code, ch
}

// nextRaw returns the next message of msgs.
func nextRaw(t *testing.T, msgs <-chan roomMsg) roomMsg {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-testCtx(t).Done():
		t.Fatal("no message")
		return roomMsg{}
	}
}

// TestRedisFleetDeadRelay: a relay that dies without a word (its Redis
// connection gone first) stops refreshing its liveness; the relay of a
// room's host then drops the players it stood in for that relay (the
// host hears "left") and keeps those of a live relay and the room.
func TestRedisFleetDeadRelay(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg, rcfg := RoomConfig{TickInterval: 50 * time.Millisecond}, RedisConfig{TTL: 2 * time.Second}
	r1, dir1, _ := startFleetRelayWith(t, url, cfg, rcfg)
	r2, _, crash2 := startFleetRelayWith(t, url, cfg, rcfg)
	r3, _, _ := startFleetRelayWith(t, url, cfg, rcfg)
	code, host := rawHost(t, r1.url)
	for i, r := range []*testRelay{r2, r3} {
		ws := dialRaw(t, r.url)
		writeRaw(t, ws, fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code))
		_, b, err := ws.Read(testCtx(t))
		if m, _ := decodeReply(b); err != nil || m.Type != RoomMsgJoined || m.ID != fmt.Sprintf("p%d", i+1) {
			t.Fatalf("join through relay %d: %s %v", i+2, b, err)
		}
		if m := nextRaw(t, host); m.Type != RoomMsgPlayer {
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
	if m := nextRaw(t, host); m.Type != RoomMsgLeft || m.ID != "p1" {
		t.Fatalf("host got %+v, want p1 (through the dead relay) left", m)
	}
	t.Logf("the dead relay's player left after %v (TTL %v)", time.Since(start), rcfg.TTL)
	r1.srv.hub.mu.Lock()
	standIns := len(r1.srv.hub.fleet.standIns)
	r1.srv.hub.mu.Unlock()
	if standIns != 1 {
		t.Errorf("%d stand-ins left at the host's relay, want 1 (the live relay's player)", standIns)
	}
	if rec, ok := dir1.Lookup(code, time.Now()); !ok || rec.Ended || rec.Owner != dir1.Self() {
		t.Errorf("the room in the directory: %+v %v", rec, ok)
	}
}
