package relay

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// lookupMsg is a lookup of code.
func lookupMsg(code string) roomproto.Msg {
	return roomproto.Msg{Type: roomproto.MsgLookup, V: roomproto.Version, Code: code}
}

// TestHubLookup: a lookup answers "found" with the code alone for a live
// room (its host hears nothing, no player is admitted, the connection
// stays out of rooms and may join next), no_room for a code no room has
// and for an ended room (both counted as failed joins), bad_code for what
// is not a code (not counted), and, while the directory cannot tell,
// unavailable (counted, as a join's).
func TestHubLookup(t *testing.T) {
	dir := &flakyDirectory{Directory: roomdir.NewMemory(time.Minute)}
	h := newTestHub(RoomConfig{Directory: dir})
	host, hosted := hostRoom(t, h, "")
	c := mustConnect(t, h, "10.0.0.2")
	sendMsg(h, c, lookupMsg(hosted.Code), t0)
	if m := next(t, c); !reflect.DeepEqual(m, roomproto.Msg{Type: roomproto.MsgFound, Code: hosted.Code}) {
		t.Fatalf("lookup of a live room: %+v, want found with the code alone", m)
	}
	noMsg(t, host)
	if c.role != roleNone || c.room != nil || len(h.rooms[hosted.Code].players) != 0 || c.killed {
		t.Fatalf("after a lookup: role %d, room %v, players %d, killed %v", c.role, c.room, len(h.rooms[hosted.Code].players), c.killed)
	}
	sendMsg(h, c, lookupMsg("ZZZZZZZ"), t0)
	wantErr(t, c, roomproto.ErrCodeNoRoom, false)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgLookup, V: roomproto.Version, Code: "zz zz"}, t0)
	wantErr(t, c, roomproto.ErrCodeBadCode, false)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	wantJoined(t, c)
	if m := next(t, host); m.Type != roomproto.MsgPlayer {
		t.Fatalf("host told %+v, want player", m)
	}

	// An ended room is no room.
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: hosted.Key}, t0)
	d := mustConnect(t, h, "10.0.0.3")
	sendMsg(h, d, lookupMsg(hosted.Code), t0)
	wantErr(t, d, roomproto.ErrCodeNoRoom, false)

	dir.down.Store(true)
	sendMsg(h, d, lookupMsg("ZZZZZZZ"), t0)
	wantErr(t, d, roomproto.ErrCodeUnavailable, false)
	if st := h.roomStats(); st.LookupsFound != 1 || st.JoinsFailed != 3 || st.DirectoryUnavailable != 1 {
		t.Fatalf("stats %+v, want 1 lookup found, 3 failed (no room, ended, unavailable), 1 unavailable", st)
	}
}

// flakyDirectory is a directory that cannot tell while down.
type flakyDirectory struct {
	roomdir.Directory
	down atomic.Bool
}

func (f *flakyDirectory) Lookup(code string, now time.Time) (roomdir.Record, bool, error) {
	if f.down.Load() {
		return roomdir.Record{}, false, fmt.Errorf("%w: test", roomproto.ErrUnavailable)
	}
	return f.Directory.Lookup(code, now)
}

// guessAnswers runs a code guesser from one address for span of made-up
// time: a guess (a join, or a lookup if lookup) every 50 ms, within the
// connection's message rate, each from the connection of the guess
// before unless the relay closed it. It returns the guesses answered
// no_room and those refused rate_limited; any other answer fails t.
func guessAnswers(t *testing.T, h *roomHub, addr string, lookup bool, span time.Duration) (answered, refused int) {
	t.Helper()
	var c *roomConn
	for i, at := 0, time.Duration(0); at < span; i, at = i+1, at+50*time.Millisecond {
		now := t0.Add(at)
		if c == nil || c.killed {
			if c != nil {
				h.disconnect(c, now)
			}
			var err error
			if c, err = h.connect(addr, now); err != nil {
				t.Fatal(err)
			}
		}
		code := []byte("ZZZZZZZ") // the hub has no room: any code is a miss
		for k, n := 2, i; k < len(code); k, n = k+1, n/32 {
			code[k] = roomcode.Alphabet[n%32]
		}
		m := roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: string(code)}
		if lookup {
			m = lookupMsg(string(code))
		}
		sendMsg(h, c, m, now)
		switch r := next(t, c); r.Error {
		case roomproto.ErrCodeNoRoom:
			answered++
		case roomproto.ErrCodeRateLimited:
			refused++
		default:
			t.Fatalf("guess %d: %+v", i, r)
		}
	}
	return answered, refused
}

// TestHubLookupGuessingThrottledAsJoins is the attack a lookup invites:
// guessing codes by lookups instead of joins. Over two minutes of
// made-up time from one address, 20 guesses a second, a guesser by
// lookups gets exactly as many answers as one by joins (the failed-join
// burst plus FailedJoinRate a second: 140), the rest refused; lookups
// and joins draw on one bucket; and a throttled address's lookup of a
// live room is refused too (the throttle answers before the directory).
func TestHubLookupGuessingThrottledAsJoins(t *testing.T) {
	const span = 2 * time.Minute
	noBudget := RoomConfig{FailBudgetRate: -1} // the per-address bucket alone
	byJoin, refusedJoin := guessAnswers(t, newTestHub(noBudget), "10.6.0.1", false, span)
	byLookup, refusedLookup := guessAnswers(t, newTestHub(noBudget), "10.6.0.1", true, span)
	t.Logf("in %v at 20 guesses a second: by joins %d answered, %d refused; by lookups %d answered, %d refused",
		span, byJoin, refusedJoin, byLookup, refusedLookup)
	if byLookup != byJoin || byLookup > 20+int(span.Seconds())+1 || byLookup < 20+int(span.Seconds())-1 {
		t.Fatalf("guesses answered by lookups %d, by joins %d, want both 20 + 1 a second (%d)", byLookup, byJoin, 20+int(span.Seconds()))
	}

	h := newTestHub(RoomConfig{})
	_, hosted := hostRoom(t, h, "")
	c := mustConnect(t, h, "10.6.0.2")
	for i := range 20 {
		m := lookupMsg(fmt.Sprintf("ZZZZZ%c%c", roomcode.Alphabet[i], roomcode.Alphabet[i]))
		if i%2 == 1 {
			m = roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: m.Code}
		}
		sendMsg(h, c, m, t0)
		wantErr(t, c, roomproto.ErrCodeNoRoom, false)
	}
	c = mustConnect(t, h, "10.6.0.2")
	sendMsg(h, c, lookupMsg(hosted.Code), t0)
	wantErr(t, c, roomproto.ErrCodeRateLimited, true) // 10 lookups + 10 joins spent the 20
	c = mustConnect(t, h, "10.6.0.2")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	wantErr(t, c, roomproto.ErrCodeRateLimited, true)
	c = mustConnect(t, h, "10.6.0.2")
	sendMsg(h, c, lookupMsg(hosted.Code), t0.Add(time.Second)) // a token back
	if m := next(t, c); m.Type != roomproto.MsgFound {
		t.Fatalf("lookup a second later: %+v, want found", m)
	}
}

// TestHubLookupSpendsFailBudget: guessing by lookups from many addresses
// spends the relay's budget of failed joins as joins do; then an
// address whose lookup failed lately is refused both a lookup and a
// join, while an address that never failed is answered.
func TestHubLookupSpendsFailBudget(t *testing.T) {
	h := newTestHub(RoomConfig{FailBudgetRate: 1, FailBudgetBurst: 5, FailMemory: time.Minute})
	_, hosted := hostRoom(t, h, "")
	ask := func(addr string, m roomproto.Msg) roomproto.Msg {
		c := mustConnect(t, h, addr)
		defer h.disconnect(c, t0)
		sendMsg(h, c, m, t0)
		return next(t, c)
	}
	for i := range 5 {
		if m := ask(fmt.Sprintf("10.7.0.%d", i+1), lookupMsg("ZZZZZZZ")); m.Error != roomproto.ErrCodeNoRoom {
			t.Fatalf("lookup %d within the budget: %+v", i, m)
		}
	}
	if m := ask("10.7.0.1", lookupMsg(hosted.Code)); m.Error != roomproto.ErrCodeRateLimited {
		t.Fatalf("a lookup from an address that failed one, budget spent: %+v, want rate_limited", m)
	}
	if m := ask("10.7.0.2", roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}); m.Error != roomproto.ErrCodeRateLimited {
		t.Fatalf("a join from an address that failed a lookup, budget spent: %+v, want rate_limited", m)
	}
	if m := ask("10.7.1.1", lookupMsg(hosted.Code)); m.Type != roomproto.MsgFound {
		t.Fatalf("a lookup from an address that never failed, budget spent: %+v, want found", m)
	}
}

// TestRedisFleetLookup: through a fleet of two relays sharing a Redis, a
// lookup at one relay finds a room hosted at the other, and lookups
// that found no room at one relay throttle the address at both.
func TestRedisFleetLookup(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg := RoomConfig{FailedJoinBurst: 3, FailedJoinRate: 0.01}
	r1, _, _ := startFleetRelayWith(t, url, cfg, roomdir.RedisConfig{})
	r2, _, _ := startFleetRelayWith(t, url, cfg, roomdir.RedisConfig{})
	code, _ := rawHost(t, r1.url)
	ws := dialRaw(t, r2.url)
	writeRaw(t, ws, fmt.Sprintf(`{"type":"lookup","v":2,"code":%q}`, code))
	if _, b, err := ws.Read(testCtx(t)); err != nil || string(b) != fmt.Sprintf(`{"type":"found","code":%q}`, code) {
		t.Fatalf("lookup at relay 2 of relay 1's room: %s %v", b, err)
	}
	for i := range 3 {
		writeRaw(t, ws, fmt.Sprintf(`{"type":"lookup","v":2,"code":"ZZZZZZ%c"}`, roomcode.Alphabet[i]))
		rawError(t, ws, roomproto.ErrCodeNoRoom, 0)
	}
	flushDirectory(t, r2) // the failed lookups counted in Redis
	ws = dialRaw(t, r1.url)
	writeRaw(t, ws, fmt.Sprintf(`{"type":"lookup","v":2,"code":%q}`, code))
	rawError(t, ws, roomproto.ErrCodeRateLimited, websocket.StatusPolicyViolation)
	if st := r1.srv.RoomStats(); st.JoinsThrottled != 1 {
		t.Errorf("relay 1: %d throttled, want 1", st.JoinsThrottled)
	}
}
