package relay

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// The relay's host-migration decision table, case by case, in made-up
// time (migrate.go).

const testKey = "00112233445566778899aabbccddeeff"

// migratingRoom hosts a room with migration and joins n players to it; it
// returns the host, the hosted message and the players.
func migratingRoom(t *testing.T, h *roomHub, n int) (*roomConn, roomproto.Msg, []*roomConn) {
	t.Helper()
	host := mustConnect(t, h, "10.0.0.1")
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Migrate: true}, t0)
	hosted := next(t, host)
	if hosted.Type != roomproto.MsgHosted {
		t.Fatalf("hosted: %+v", hosted)
	}
	var ps []*roomConn
	for range n {
		p := mustConnect(t, h, "10.0.0.2")
		sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
		if m := next(t, p); m.Type != roomproto.MsgJoined {
			t.Fatalf("joined: %+v", m)
		}
		next(t, host) // player
		ps = append(ps, p)
	}
	return host, hosted, ps
}

func claimMsg(code, key string) roomproto.Msg {
	return roomproto.Msg{Type: roomproto.MsgClaim, V: 1, Code: code, Key: key}
}

// wantClaim checks c's answer to a claim: hosted for roomproto.ClaimHost,
// joined otherwise, with the outcome.
func wantClaim(t *testing.T, c *roomConn, code, outcome string) roomproto.Msg {
	t.Helper()
	m := next(t, c)
	typ := roomproto.MsgJoined
	if outcome == roomproto.ClaimHost {
		typ = roomproto.MsgHosted
	}
	if m.Type != typ || m.Claim != outcome || m.Code != code {
		t.Fatalf("claim answered %+v, want %s with claim %q", m, typ, outcome)
	}
	return m
}

func wantHostLost(t *testing.T, ps []*roomConn, code string) {
	t.Helper()
	for _, p := range ps {
		if m := next(t, p); m.Type != roomproto.MsgHostLost || m.Code != code {
			t.Fatalf("player got %+v, want host_lost", m)
		}
	}
}

// Case: no live room (the host's relay connection closed) -> the first
// player back hosts; a claim within TakeoverWindow is introduced to it;
// the vanished host never marked the room ended.
func TestMigrateVanishedHost(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 3)
	h.disconnect(host, t0)
	wantHostLost(t, ps, hosted.Code)
	if rec, ok, _ := h.cfg.Directory.Lookup(hosted.Code, t0); !ok || rec.Ended || rec.Key != hosted.Key {
		t.Fatalf("directory after the host vanished: %+v, %v", rec, ok)
	}
	// A new player meanwhile: busy, come again.
	nc := mustConnect(t, h, "10.0.9.9")
	sendMsg(h, nc, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	wantErr(t, nc, roomproto.ErrCodeRoomBusy, false)

	now := t0.Add(100 * time.Millisecond)
	sendMsg(h, ps[1], claimMsg(hosted.Code, hosted.Key), now)
	got := wantClaim(t, ps[1], hosted.Code, roomproto.ClaimHost)
	if got.Key != hosted.Key {
		t.Fatalf("the room's key changed: %q", got.Key)
	}
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), now.Add(2900*time.Millisecond))
	j := wantClaim(t, ps[0], hosted.Code, roomproto.ClaimNew)
	if m := next(t, ps[1]); m.Type != roomproto.MsgPlayer || m.ID != j.ID {
		t.Fatalf("new host told %+v", m)
	}
	// Past TakeoverWindow, a live host is probed first.
	sendMsg(h, ps[2], claimMsg(hosted.Code, hosted.Key), now.Add(3*time.Second))
	noMsg(t, ps[2])
	ping := next(t, ps[1])
	if ping.Type != roomproto.MsgPing {
		t.Fatalf("new host got %+v, want the probe", ping)
	}
	sendMsg(h, ps[1], roomproto.Msg{Type: roomproto.MsgPong, N: ping.N}, now.Add(3100*time.Millisecond))
	wantClaim(t, ps[2], hosted.Code, roomproto.ClaimSame)
}

// Case: a live room whose host holds its relay connection and answers
// the probe within ProbeTimeout -> every claimant goes back to it.
func TestMigrateProbeAnswered(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 2)
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), t0)
	if m := next(t, host); m.Type != roomproto.MsgLeft {
		t.Fatalf("host got %+v, want left (the claimant was its player)", m)
	}
	probe := next(t, host)
	if probe.Type != roomproto.MsgPing {
		t.Fatalf("host got %+v", probe)
	}
	sendMsg(h, ps[1], claimMsg(hosted.Code, hosted.Key), t0.Add(time.Second))
	next(t, host)  // left
	noMsg(t, host) // one probe for both claims
	h.tick(t0.Add(2999 * time.Millisecond))
	for _, p := range ps {
		noMsg(t, p)
	}
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgPong, N: probe.N}, t0.Add(2999*time.Millisecond))
	for _, p := range ps {
		wantClaim(t, p, hosted.Code, roomproto.ClaimSame)
	}
	if host.killed || h.rooms[hosted.Code].host != host {
		t.Fatal("the host that answered lost its room")
	}
}

// Case: the probe unanswered in ProbeTimeout -> the old host is told it
// lost the room; the claimants are replayed in arrival order: the first
// hosts, the others are introduced to it. Two claimants end with exactly
// one host.
func TestMigrateProbeSilent(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 3)
	sendMsg(h, ps[2], claimMsg(hosted.Code, hosted.Key), t0)
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), t0.Add(10*time.Millisecond))
	next(t, host) // left
	next(t, host) // the probe
	next(t, host) // left
	h.tick(t0.Add(2999 * time.Millisecond))
	if host.killed {
		t.Fatal("host lost the room before ProbeTimeout")
	}
	if m := next(t, host); m.Type != roomproto.MsgPing { // the ordinary ping, also unanswered
		t.Fatalf("host got %+v", m)
	}
	h.tick(t0.Add(3 * time.Second))
	if m := next(t, host); m.Type != roomproto.MsgError || m.Error != roomproto.ErrCodeHostGone || !host.killed {
		t.Fatalf("old host got %+v (killed %v)", m, host.killed)
	}
	wantClaim(t, ps[2], hosted.Code, roomproto.ClaimHost)
	j := wantClaim(t, ps[0], hosted.Code, roomproto.ClaimNew)
	if m := next(t, ps[2]); m.Type != roomproto.MsgPlayer || m.ID != j.ID {
		t.Fatalf("new host told %+v", m)
	}
	// The player that had not claimed yet is told, and is introduced.
	wantHostLost(t, ps[1:2], hosted.Code)
	sendMsg(h, ps[1], claimMsg(hosted.Code, hosted.Key), t0.Add(3100*time.Millisecond))
	wantClaim(t, ps[1], hosted.Code, roomproto.ClaimNew)
	hosts := 0
	for _, c := range h.conns {
		if c.role == roleHost {
			hosts++
		}
	}
	if hosts != 1 {
		t.Fatalf("%d hosts", hosts)
	}
}

// Case: a hung host (relay connection open, pings unanswered for
// HostTimeout) -> orphaned, players told host_lost, not ended.
func TestMigrateHungHost(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 2)
	h.tick(t0.Add(3 * time.Second))
	if !host.killed {
		t.Fatal("hung host kept its room")
	}
	wantHostLost(t, ps, hosted.Code)
	sendMsg(h, ps[1], claimMsg(hosted.Code, hosted.Key), t0.Add(3100*time.Millisecond))
	wantClaim(t, ps[1], hosted.Code, roomproto.ClaimHost)
}

// Case: another key -> refused as another match; the room stays.
func TestMigrateOtherKey(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 1)
	h.disconnect(host, t0)
	wantHostLost(t, ps, hosted.Code)
	sendMsg(h, ps[0], claimMsg(hosted.Code, testKey), t0)
	wantErr(t, ps[0], roomproto.ErrCodeBadKey, false)
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), t0)
	wantClaim(t, ps[0], hosted.Code, roomproto.ClaimHost)
}

// Case: a match its host ended on purpose within EndedRemember -> ended;
// after it, the code is free and a claim hosts anew.
func TestMigrateEnded(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 1)
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: hosted.Key}, t0)
	if m := next(t, ps[0]); m.Type != roomproto.MsgEnded {
		t.Fatalf("player got %+v", m)
	}
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), t0.Add(4*time.Minute+59*time.Second))
	wantErr(t, ps[0], roomproto.ErrCodeRoomEnded, false)
	h.tick(t0.Add(5 * time.Minute))
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), t0.Add(5*time.Minute))
	wantClaim(t, ps[0], hosted.Code, roomproto.ClaimHost)
}

// Case: no record at all (a restarted relay) -> the first claimant hosts
// the room under its code and key.
func TestMigrateUnknownRoom(t *testing.T) {
	h := newTestHub(RoomConfig{})
	a, b := mustConnect(t, h, "10.0.0.5"), mustConnect(t, h, "10.0.0.6")
	sendMsg(h, a, claimMsg("ABC234", testKey), t0)
	if m := wantClaim(t, a, "ABC234", roomproto.ClaimHost); m.Key != testKey {
		t.Fatalf("key %q", m.Key)
	}
	sendMsg(h, b, claimMsg("ABC234", testKey), t0.Add(time.Second))
	wantClaim(t, b, "ABC234", roomproto.ClaimNew)
	c := mustConnect(t, h, "10.0.0.7")
	sendMsg(h, c, claimMsg("ABC234", "ffffffffffffffffffffffffffffffff"), t0.Add(time.Second))
	wantErr(t, c, roomproto.ErrCodeBadKey, false)
}

// An orphaned room no one claims in OrphanWindow is forgotten (not
// ended); a claimant that leaves while waiting on a probe is dropped and
// the next one hosts.
func TestMigrateOrphanForgottenAndClaimantLeaves(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 1)
	h.disconnect(host, t0)
	wantHostLost(t, ps, hosted.Code)
	h.tick(t0.Add(29 * time.Second))
	if h.rooms[hosted.Code] == nil {
		t.Fatal("forgotten before OrphanWindow")
	}
	h.tick(t0.Add(30 * time.Second))
	if h.rooms[hosted.Code] != nil {
		t.Fatal("orphan kept past OrphanWindow")
	}
	if rec, ok, _ := h.cfg.Directory.Lookup(hosted.Code, t0.Add(30*time.Second)); ok {
		t.Fatalf("directory keeps %+v", rec)
	}

	h2 := newTestHub(RoomConfig{})
	host2, hosted2, ps2 := migratingRoom(t, h2, 2)
	sendMsg(h2, ps2[0], claimMsg(hosted2.Code, hosted2.Key), t0)
	sendMsg(h2, ps2[1], claimMsg(hosted2.Code, hosted2.Key), t0)
	h2.disconnect(ps2[0], t0.Add(time.Second))
	h2.tick(t0.Add(3 * time.Second))
	if !host2.killed {
		t.Fatal("silent host kept the room")
	}
	wantClaim(t, ps2[1], hosted2.Code, roomproto.ClaimHost)
}

func TestClaimMessageChecked(t *testing.T) {
	h := newTestHub(RoomConfig{})
	for _, m := range []roomproto.Msg{
		{Type: roomproto.MsgClaim, V: 1, Code: "ABC234"},
		{Type: roomproto.MsgClaim, V: 1, Key: testKey},
		{Type: roomproto.MsgClaim, V: 1, Code: "ABC234", Key: testKey, MaxPlayers: -1},
	} {
		c := mustConnect(t, h, "10.0.3.3")
		sendMsg(h, c, m, t0)
		wantErr(t, c, roomproto.ErrCodeBadMessage, true)
	}
	c := mustConnect(t, h, "10.0.3.3")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgClaim, V: 3, Code: "ABC234", Key: testKey}, t0)
	wantErr(t, c, roomproto.ErrCodeBadVersion, true)
}

// Case: a claimant that cannot host (a browser tab) is never made the
// host: it waits for one that can, and is introduced to it; with none
// in OrphanWindow, the room goes and it is told.
func TestMigrateNoHostClaimant(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 3)
	h.disconnect(host, t0)
	wantHostLost(t, ps, hosted.Code)
	tab := claimMsg(hosted.Code, hosted.Key)
	tab.NoHost = true
	sendMsg(h, ps[0], tab, t0)
	noMsg(t, ps[0])
	sendMsg(h, ps[1], claimMsg(hosted.Code, hosted.Key), t0.Add(time.Second))
	wantClaim(t, ps[1], hosted.Code, roomproto.ClaimHost)
	j := wantClaim(t, ps[0], hosted.Code, roomproto.ClaimNew)
	if m := next(t, ps[1]); m.Type != roomproto.MsgPlayer || m.ID != j.ID {
		t.Fatalf("new host told %+v", m)
	}

	// Only tabs: they wait, then the room goes.
	h2 := newTestHub(RoomConfig{})
	host2, hosted2, ps2 := migratingRoom(t, h2, 2)
	h2.disconnect(host2, t0)
	wantHostLost(t, ps2, hosted2.Code)
	tab2 := claimMsg(hosted2.Code, hosted2.Key)
	tab2.NoHost = true
	sendMsg(h2, ps2[0], tab2, t0)
	sendMsg(h2, ps2[1], tab2, t0)
	h2.tick(t0.Add(29 * time.Second))
	noMsg(t, ps2[0])
	h2.tick(t0.Add(30 * time.Second))
	for _, p := range ps2 {
		if m := next(t, p); m.Type != roomproto.MsgEnded {
			t.Fatalf("tab got %+v", m)
		}
	}

	// A tab among the claimants of a silent host: the first that can
	// host hosts, though it came later.
	h3 := newTestHub(RoomConfig{})
	host3, hosted3, ps3 := migratingRoom(t, h3, 2)
	tab3 := claimMsg(hosted3.Code, hosted3.Key)
	tab3.NoHost = true
	sendMsg(h3, ps3[0], tab3, t0)
	sendMsg(h3, ps3[1], claimMsg(hosted3.Code, hosted3.Key), t0.Add(10*time.Millisecond))
	h3.tick(t0.Add(3 * time.Second))
	if !host3.killed {
		t.Fatal("silent host kept the room")
	}
	wantClaim(t, ps3[1], hosted3.Code, roomproto.ClaimHost)
	wantClaim(t, ps3[0], hosted3.Code, roomproto.ClaimNew)
}
