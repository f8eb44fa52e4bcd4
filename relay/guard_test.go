package relay

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// joinRoom sends a join for code from a new connection at addr at now.
func joinRoom(t *testing.T, h *roomHub, addr, code string, now time.Time) *roomConn {
	t.Helper()
	c := mustConnect(t, h, addr)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: code}, now)
	return c
}

func wantJoined(t *testing.T, c *roomConn) roomproto.Msg {
	t.Helper()
	m := next(t, c)
	if m.Type != roomproto.MsgJoined {
		t.Fatalf("got %+v, want joined", m)
	}
	return m
}

func drain(c *roomConn) {
	for {
		select {
		case <-c.out:
		default:
			return
		}
	}
}

func TestHubPendingJoinerExpires(t *testing.T) {
	h := newTestHub(RoomConfig{HostTimeout: time.Hour, PingInterval: time.Hour})
	host, hosted := hostRoom(t, h, "")
	squat := joinRoom(t, h, "10.0.0.2", hosted.Code, t0)
	id := wantJoined(t, squat).ID
	drain(host)
	h.tick(t0.Add(20*time.Second - time.Millisecond))
	if squat.killed || squat.room == nil {
		t.Fatal("joiner dropped before JoinTimeout")
	}
	h.tick(t0.Add(20 * time.Second))
	wantErr(t, squat, roomproto.ErrCodeJoinTimeout, true)
	if m := next(t, host); m.Type != roomproto.MsgLeft || m.ID != id {
		t.Fatalf("host told %+v, want left %s", m, id)
	}
	if st := h.roomStats(); st.Pending != 0 || st.PendingDropped != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestHubSquattersDoNotFillRoom: joiners that never open a data channel
// do not count against the room's players; from one address only
// JoiningPerAddr are kept, from many the oldest leaves after JoinGrace.
func TestHubSquattersDoNotFillRoom(t *testing.T) {
	h := newTestHub(RoomConfig{MaxPlayers: 16})
	_, hosted := hostRoom(t, h, "")
	for range 32 { // one address: the newest 8 stay
		wantJoined(t, joinRoom(t, h, "10.0.0.2", hosted.Code, t0))
	}
	if st := h.roomStats(); st.Pending != 8 || st.PendingDropped != 24 {
		t.Fatalf("stats %+v, want 8 pending, 24 dropped", st)
	}
	legit := joinRoom(t, h, "10.0.0.3", hosted.Code, t0)
	wantJoined(t, legit)
	sendMsg(h, legit, roomproto.Msg{Type: roomproto.MsgConnected}, t0)
	if !legit.connected || legit.killed {
		t.Fatal("legit player not in")
	}

	// 32 addresses, one squatter each: the room is busy for JoinGrace.
	h = newTestHub(RoomConfig{MaxPlayers: 16})
	_, hosted = hostRoom(t, h, "")
	var squat []*roomConn
	for i := range 32 {
		c := joinRoom(t, h, fmt.Sprintf("10.1.0.%d", i), hosted.Code, t0.Add(time.Duration(i)*time.Millisecond))
		wantJoined(t, c)
		squat = append(squat, c)
	}
	wantErr(t, joinRoom(t, h, "10.0.0.3", hosted.Code, t0.Add(time.Second)), roomproto.ErrCodeRoomBusy, false)
	legit = joinRoom(t, h, "10.0.0.3", hosted.Code, t0.Add(5*time.Second))
	wantJoined(t, legit)
	sendMsg(h, legit, roomproto.Msg{Type: roomproto.MsgConnected}, t0.Add(5*time.Second))
	if !legit.connected || !squat[0].killed || squat[1].killed {
		t.Fatalf("legit connected %v, oldest squatter killed %v, next %v", legit.connected, squat[0].killed, squat[1].killed)
	}
	wantErr(t, squat[0], roomproto.ErrCodeJoinTimeout, true)
}

// TestHubFullRoomRefusesLateChannel: a joiner whose data channel opens
// once the room is full of connected players leaves with room_full.
func TestHubFullRoomRefusesLateChannel(t *testing.T) {
	h := newTestHub(RoomConfig{MaxPlayers: 1})
	_, hosted := hostRoom(t, h, "")
	a := joinRoom(t, h, "10.0.0.2", hosted.Code, t0)
	b := joinRoom(t, h, "10.0.0.3", hosted.Code, t0)
	wantJoined(t, a)
	wantJoined(t, b)
	sendMsg(h, a, roomproto.Msg{Type: roomproto.MsgConnected}, t0)
	sendMsg(h, b, roomproto.Msg{Type: roomproto.MsgConnected}, t0)
	wantErr(t, b, roomproto.ErrCodeRoomFull, false)
	if !a.connected || b.room != nil || len(a.room.players) != 1 || a.room.joining != 0 {
		t.Fatalf("a connected %v, b in a room %v, players %d, joining %d", a.connected, b.room != nil, len(a.room.players), a.room.joining)
	}
}

// TestHubFailedJoinsThrottled: failed joins are counted per address across
// connections; a new connection brings no fresh burst.
func TestHubFailedJoinsThrottled(t *testing.T) {
	h := newTestHub(RoomConfig{})
	_, hosted := hostRoom(t, h, "")
	for i := range 20 {
		wantErr(t, joinRoom(t, h, "10.0.0.9", fmt.Sprintf("ZZZZ%c%c", 'A'+i%26, 'A'+i/26), t0), roomproto.ErrCodeNoRoom, false)
	}
	// Out of tokens: even a good code is refused, from a new connection.
	wantErr(t, joinRoom(t, h, "10.0.0.9", hosted.Code, t0), roomproto.ErrCodeRateLimited, true)
	c := mustConnect(t, h, "10.0.0.9")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: "00000000000000000000000000000000"}, t0)
	wantErr(t, c, roomproto.ErrCodeRateLimited, true)
	// Another address is not affected; a second later one token is back.
	wantJoined(t, joinRoom(t, h, "10.0.0.10", hosted.Code, t0))
	wantJoined(t, joinRoom(t, h, "10.0.0.9", hosted.Code, t0.Add(time.Second)))
	wantErr(t, joinRoom(t, h, "10.0.0.9", "ZZZZZZ", t0.Add(time.Second)), roomproto.ErrCodeNoRoom, false)
	wantErr(t, joinRoom(t, h, "10.0.0.9", "ZZZZZZ", t0.Add(time.Second)), roomproto.ErrCodeRateLimited, true)
	// IPv6: one /64 is one address.
	for i := range 20 {
		wantErr(t, joinRoom(t, h, fmt.Sprintf("2001:db8::%x", i+1), "ZZZZZZ", t0), roomproto.ErrCodeNoRoom, false)
	}
	wantErr(t, joinRoom(t, h, "2001:db8::ffff", hosted.Code, t0), roomproto.ErrCodeRateLimited, true)
	wantJoined(t, joinRoom(t, h, "2001:db8:0:1::1", hosted.Code, t0))
	if st := h.roomStats(); st.JoinsFailed != 41 || st.JoinsThrottled != 4 {
		t.Fatalf("stats %+v", st)
	}
	// Full buckets are forgotten.
	h.tick(t0.Add(time.Minute))
	if n := len(h.guard.failed); n != 0 {
		t.Fatalf("%d buckets kept after they filled up", n)
	}
}

// TestHubFailBudget is issue 30's item 10 at one relay: guessing codes
// from many addresses (each within its own failed-join burst) spends the
// relay's budget of failed joins; from then on an address that failed
// lately is refused before its code is looked up, while an address that
// never failed is answered (and a player with the right code joins), and
// the budget's refill or the end of FailMemory lets the others in again.
func TestHubFailBudget(t *testing.T) {
	h := newTestHub(RoomConfig{FailBudgetRate: 1, FailBudgetBurst: 5, FailMemory: time.Minute})
	_, hosted := hostRoom(t, h, "")
	guess := func(addr string, now time.Time) roomproto.Msg {
		c := mustConnect(t, h, addr)
		defer h.disconnect(c, now)
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ZZZZZZZZ"}, now)
		return next(t, c)
	}
	for i := range 5 {
		if m := guess(fmt.Sprintf("10.9.0.%d", i+1), t0); m.Error != roomproto.ErrCodeNoRoom {
			t.Fatalf("guess %d within the budget: %+v", i, m)
		}
	}
	if m := guess("10.9.0.1", t0); m.Error != roomproto.ErrCodeRateLimited {
		t.Fatalf("a second guess from an address with the budget spent: %+v, want rate_limited", m)
	}
	if m := guess("10.9.1.1", t0); m.Error != roomproto.ErrCodeNoRoom {
		t.Fatalf("a first guess from a new address with the budget spent: %+v, want no_room", m)
	}
	p := mustConnect(t, h, "10.9.2.1")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	if m := next(t, p); m.Type != roomproto.MsgJoined {
		t.Fatalf("a player with the right code while the budget is spent: %+v", m)
	}
	if m := guess("10.9.0.2", t0.Add(1500*time.Millisecond)); m.Error != roomproto.ErrCodeNoRoom {
		t.Fatalf("a guess once the budget refilled a token: %+v, want no_room", m)
	}
	if m := guess("10.9.0.3", t0.Add(1500*time.Millisecond)); m.Error != roomproto.ErrCodeRateLimited {
		t.Fatalf("a guess with the budget spent again: %+v, want rate_limited", m)
	}
	if m := guess("10.9.0.4", t0.Add(time.Minute+time.Second)); m.Error != roomproto.ErrCodeNoRoom {
		t.Fatalf("a guess from an address whose failure is FailMemory old: %+v, want no_room", m)
	}
}

// TestHubLookupPrefixUncounted is issue 43's item 6: under a guessing
// attack that spent the relay's budget of failed joins, a person types
// the room's code and pauses after 6 of its 7 characters; the page looks
// that up, then the whole code. The prefix is answered bad_code and
// counted nowhere, so the whole code is found and joined (before, the
// prefix's no_room was the address's failed join and the whole code was
// refused rate_limited).
func TestHubLookupPrefixUncounted(t *testing.T) {
	h := newTestHub(RoomConfig{FailBudgetRate: 1, FailBudgetBurst: 5, FailMemory: time.Minute})
	_, hosted := hostRoom(t, h, "")
	if len(hosted.Code) != h.cfg.CodeLength || h.cfg.CodeLength != 7 {
		t.Fatalf("code %q, CodeLength %d: want the default 7", hosted.Code, h.cfg.CodeLength)
	}
	ask := func(addr string, m roomproto.Msg) roomproto.Msg {
		c := mustConnect(t, h, addr)
		defer h.disconnect(c, t0)
		sendMsg(h, c, m, t0)
		return next(t, c)
	}
	for i := range 8 { // the guessing attack: the budget spent
		ask(fmt.Sprintf("10.9.0.%d", i+1), roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ZZZZZZZ"})
	}
	failed := h.stats.joinsFailed
	const person = "10.9.5.1"
	if m := ask(person, roomproto.Msg{Type: roomproto.MsgLookup, V: 2, Code: hosted.Code[:6]}); m.Error != roomproto.ErrCodeBadCode {
		t.Fatalf("the lookup of a 6-character prefix: %+v, want bad_code", m)
	}
	if h.stats.joinsFailed != failed {
		t.Fatalf("the prefix's lookup counted as a failed join (%d, was %d)", h.stats.joinsFailed, failed)
	}
	if m := ask(person, roomproto.Msg{Type: roomproto.MsgLookup, V: 2, Code: hosted.Code}); m.Type != roomproto.MsgFound {
		t.Fatalf("the lookup of the whole code after the prefix's: %+v, want found", m)
	}
	if m := ask(person, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}); m.Type != roomproto.MsgJoined {
		t.Fatalf("the join of the whole code: %+v", m)
	}
}
