package relay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// rawAsk sends msg over a new bare WebSocket to url and returns the
// relay's first answer; ok is false if none came within wait (a message
// between relays lost while Redis restarted: the test asks again).
func rawAsk(t *testing.T, url, msg string, wait time.Duration) (m roomproto.Msg, ok bool) {
	t.Helper()
	ws := dialRaw(t, url)
	defer ws.CloseNow()
	writeRaw(t, ws, msg)
	ctx, cancel := context.WithTimeout(testCtx(t), wait)
	defer cancel()
	_, b, err := ws.Read(ctx)
	if err != nil {
		return roomproto.Msg{}, false
	}
	m, _ = decodeReply(b)
	return m, true
}

// TestRedisRestartKeepsRooms is issue 30's items 2 and 11 as an attacker
// tries them against two relays sharing a real redis-server that is
// killed and then started again empty. While Redis is down, a join
// through the other relay says "unavailable" (not no_room), and one
// through the room's own relay still gets in. Once Redis is back empty,
// an attacker hosting the room's code, or claiming it with its own key,
// is refused at every try; every join through the other relay answers
// "unavailable" or "joined", never no_room, until the room's relay has
// registered it again (with its key) and a join gets in.
func TestRedisRestartKeepsRooms(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	rs := testutil.StartRedisServer(t)
	cfg := RoomConfig{TickInterval: 50 * time.Millisecond, FailedJoinBurst: 1000}
	// TTL 9 s: refreshes every 1.5 s, a recovery window of 3 s.
	rcfg := roomdir.RedisConfig{TTL: 9 * time.Second}
	r1, dir1, _ := startFleetRelayWith(t, rs.URL, cfg, rcfg)
	r2, _, _ := startFleetRelayWith(t, rs.URL, cfg, rcfg)
	code, host := rawHost(t, r1.url)
	rec, ok, err := dir1.Lookup(code, time.Now())
	if !ok || err != nil {
		t.Fatalf("the room in the directory: %+v %v %v", rec, ok, err)
	}
	join := fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code)

	rs.Close() // item 11: Redis killed mid-match
	if m, ok := rawAsk(t, r2.url, join, 10*time.Second); !ok || m.Type != roomproto.MsgError || m.Error != roomproto.ErrCodeUnavailable {
		t.Fatalf("join through the other relay with Redis down: %+v (answered %v), want unavailable", m, ok)
	}
	rawJoin(t, r1.url, code) // the room's own relay takes it on its own word
	if m := nextRaw(t, host); m.Type != roomproto.MsgPlayer {
		t.Fatalf("host got %+v, want the player joined at its relay", m)
	}

	if err := rs.Restart(); err != nil { // item 2: Redis back, empty
		t.Fatal(err)
	}
	start := time.Now()
	attacks := []string{
		fmt.Sprintf(`{"type":"host","v":1,"code":%q}`, code),
		fmt.Sprintf(`{"type":"claim","v":1,"code":%q,"key":"%032x"}`, code, 7),
	}
	tries, unavailable := 0, 0
	for joined := false; !joined; tries++ {
		for _, a := range attacks {
			if m, ok := rawAsk(t, r2.url, a, 10*time.Second); ok && m.Type != roomproto.MsgError {
				t.Fatalf("attack %s after %v: %+v", a, time.Since(start), m)
			}
		}
		m, ok := rawAsk(t, r2.url, join, 3*time.Second)
		switch {
		case !ok:
		case m.Type == roomproto.MsgJoined:
			joined = true
		case m.Type == roomproto.MsgError && m.Error == roomproto.ErrCodeUnavailable:
			unavailable++
		default:
			t.Fatalf("join through the other relay %v after the restart: %+v", time.Since(start), m)
		}
		if time.Since(start) > time.Minute {
			t.Fatal("the room never came back")
		}
	}
	t.Logf("joinable through the other relay %v after Redis restarted (%d tries, %d unavailable; TTL %v)",
		time.Since(start), tries, unavailable, rcfg.TTL)
	if m := nextRaw(t, host); m.Type != roomproto.MsgPlayer {
		t.Fatalf("host got %+v, want the player joined through the other relay", m)
	}
	if got, ok, err := dir1.Lookup(code, time.Now()); !ok || err != nil || got.Key != rec.Key || got.Owner != dir1.Self() {
		t.Fatalf("the room in the directory after the restart: %+v %v %v, want %+v", got, ok, err, rec)
	}
	// Once the directory's recovery window closes (RecoverGrace, TTL/3),
	// the code is taken, by the room's key.
	for held := 0; held < len(attacks); {
		held = 0
		for _, a := range attacks {
			m, _ := rawAsk(t, r2.url, a, 10*time.Second)
			switch {
			case m.Type == roomproto.MsgError && (m.Error == roomproto.ErrCodeCodeTaken || m.Error == roomproto.ErrCodeBadKey):
				held++
			case m.Type != roomproto.MsgError || m.Error != roomproto.ErrCodeUnavailable:
				t.Fatalf("attack %s once the room is back: %+v", a, m)
			}
		}
		if time.Since(start) > time.Minute {
			t.Fatal("the directory never left its recovery")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := r1.srv.RoomStats(); st.RoomsRegisteredAgain != 1 {
		t.Errorf("the room's relay registered %d rooms again, want 1", st.RoomsRegisteredAgain)
	}
}
