package relay

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// Room keys that leave with the player (issue 43 item 1), in made-up
// time (rekey.go).

const newKey = "0123456789abcdef0123456789abcdef"

// rekeyRoom has host rotate its room's key to key at now.
func rekeyRoom(t *testing.T, h *roomHub, host *roomConn, code, key string, now time.Time) {
	t.Helper()
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgRekey, Code: code, Key: key}, now)
	if m := next(t, host); m.Type != roomproto.MsgRekeyed || m.Key != key {
		t.Fatalf("rekey answered %+v", m)
	}
}

// pong has host answer a ping at now.
func pong(t *testing.T, h *roomHub, host *roomConn, now time.Time) {
	t.Helper()
	h.tick(now)
	if m := next(t, host); m.Type != roomproto.MsgPing {
		t.Fatalf("host got %+v, want a ping", m)
	}
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgPong, N: h.rooms[host.room.code].pingN}, now)
}

// A player who left holds the key before the rekey: from a new
// connection it can neither end the room nor claim it once the host is
// lost; the players who stayed claim with the new key.
func TestRekeyExPlayerCannotEndOrClaim(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 2)
	old := hosted.Key
	rekeyRoom(t, h, host, hosted.Code, newKey, t0.Add(time.Second))
	ex := mustConnect(t, h, "10.0.6.6")
	sendMsg(h, ex, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: old}, t0.Add(2*time.Second))
	wantErr(t, ex, roomproto.ErrCodeBadKey, false)
	if h.rooms[hosted.Code] == nil {
		t.Fatal("the ex-player ended the room")
	}
	// Only the host rekeys.
	sendMsg(h, ps[0], roomproto.Msg{Type: roomproto.MsgRekey, Code: hosted.Code, Key: testKey}, t0.Add(2*time.Second))
	wantErr(t, ps[0], roomproto.ErrCodeBadMessage, true)

	// The host vanishes past the grace: the ex-player claims first, with
	// the old key, and is refused; the honest player hosts.
	pong(t, h, host, t0.Add(2500*time.Millisecond))
	pong(t, h, host, t0.Add(4900*time.Millisecond)) // heard from well after the rekey
	lost := t0.Add(5 * time.Second)
	h.disconnect(host, lost)
	wantHostLost(t, ps[1:], hosted.Code)
	sendMsg(h, ex, claimMsg(hosted.Code, old), lost.Add(10*time.Millisecond))
	wantErr(t, ex, roomproto.ErrCodeBadKey, false)
	sendMsg(h, ps[1], claimMsg(hosted.Code, newKey), lost.Add(100*time.Millisecond))
	if m := wantClaim(t, ps[1], hosted.Code, roomproto.ClaimHost); m.Key != newKey {
		t.Fatalf("new host got key %q", m.Key)
	}
	// And the room ends with the new key only.
	sendMsg(h, ex, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: old}, lost.Add(time.Second))
	wantErr(t, ex, roomproto.ErrCodeBadKey, false)
	sendMsg(h, ps[1], roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: newKey}, lost.Add(time.Second))
	if h.rooms[hosted.Code] != nil {
		t.Fatal("the host could not end the room with the new key")
	}
}

// A host lost after its last pong came within RekeyGrace of its rekey:
// its players may hold the previous key, which claims the room (and the
// room goes back to it); heard from later, it does not.
func TestRekeyGrace(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, ps := migratingRoom(t, h, 2)
	rekeyRoom(t, h, host, hosted.Code, newKey, t0)
	pong(t, h, host, t0.Add(1500*time.Millisecond))
	h.disconnect(host, t0.Add(1900*time.Millisecond))
	wantHostLost(t, ps, hosted.Code)
	sendMsg(h, ps[0], claimMsg(hosted.Code, hosted.Key), t0.Add(4*time.Second))
	if m := wantClaim(t, ps[0], hosted.Code, roomproto.ClaimHost); m.Key != hosted.Key {
		t.Fatalf("new host got key %q, want the previous one", m.Key)
	}
	if rec, _, _ := h.cfg.Directory.Lookup(hosted.Code, t0); rec.Key != hosted.Key {
		t.Fatalf("directory key %q", rec.Key)
	}

	h2 := newTestHub(RoomConfig{})
	host, hosted, ps = migratingRoom(t, h2, 1)
	rekeyRoom(t, h2, host, hosted.Code, newKey, t0)
	pong(t, h2, host, t0.Add(2*time.Second)) // heard from 2 s after the rekey
	h2.disconnect(host, t0.Add(2100*time.Millisecond))
	wantHostLost(t, ps, hosted.Code)
	sendMsg(h2, ps[0], claimMsg(hosted.Code, hosted.Key), t0.Add(2100*time.Millisecond))
	wantErr(t, ps[0], roomproto.ErrCodeBadKey, false)
}

// A claimant that takes the room over and serves none of the claimants
// introduced to it in ServeTimeout loses the room: host_gone, the room
// orphaned; its address no longer hosts the room, the next claimant
// does.
func TestNewHostMustServe(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted, _ := migratingRoom(t, h, 0)
	bad, a, b := mustConnect(t, h, "10.0.6.6"), mustConnect(t, h, "10.0.0.3"), mustConnect(t, h, "10.0.0.4")
	for _, p := range []*roomConn{bad, a, b} {
		sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
		next(t, p) // joined
		next(t, host)
	}
	h.disconnect(host, t0)
	wantHostLost(t, []*roomConn{bad, a, b}, hosted.Code)
	sendMsg(h, bad, claimMsg(hosted.Code, hosted.Key), t0.Add(10*time.Millisecond))
	wantClaim(t, bad, hosted.Code, roomproto.ClaimHost)
	sendMsg(h, a, claimMsg(hosted.Code, hosted.Key), t0.Add(100*time.Millisecond))
	wantClaim(t, a, hosted.Code, roomproto.ClaimNew)
	sendMsg(h, b, claimMsg(hosted.Code, hosted.Key), t0.Add(200*time.Millisecond))
	wantClaim(t, b, hosted.Code, roomproto.ClaimNew)
	for range 2 {
		next(t, bad) // player
	}
	// It answers the relay's pings: it is not a vanished host.
	for at := t0.Add(500 * time.Millisecond); at.Before(t0.Add(5090 * time.Millisecond)); at = at.Add(500 * time.Millisecond) {
		h.tick(at)
		for len(bad.out) > 0 {
			if m := next(t, bad); m.Type == roomproto.MsgPing {
				sendMsg(h, bad, roomproto.Msg{Type: roomproto.MsgPong, N: m.N}, at)
			}
		}
	}
	h.tick(t0.Add(5090 * time.Millisecond))
	if bad.killed {
		t.Fatal("the new host lost the room before ServeTimeout")
	}
	h.tick(t0.Add(5100 * time.Millisecond))
	if !bad.killed {
		t.Fatal("a new host that served no one kept the room")
	}
	wantHostLost(t, []*roomConn{a, b}, hosted.Code)
	// It comes back from a fresh connection and claims first: it waits
	// (it does not host); the honest claimant hosts, and it is
	// introduced.
	again := mustConnect(t, h, "10.0.6.6")
	sendMsg(h, again, claimMsg(hosted.Code, hosted.Key), t0.Add(5200*time.Millisecond))
	noMsg(t, again)
	sendMsg(h, a, claimMsg(hosted.Code, hosted.Key), t0.Add(5300*time.Millisecond))
	wantClaim(t, a, hosted.Code, roomproto.ClaimHost)
	wantClaim(t, again, hosted.Code, roomproto.ClaimNew)
	next(t, a) // player: again
	sendMsg(h, b, claimMsg(hosted.Code, hosted.Key), t0.Add(5400*time.Millisecond))
	wantClaim(t, b, hosted.Code, roomproto.ClaimNew)
	next(t, a) // player: b
	// b's data channel opens: the new host serves, and keeps the room.
	sendMsg(h, b, roomproto.Msg{Type: roomproto.MsgConnected}, t0.Add(6*time.Second))
	for at := t0.Add(6 * time.Second); at.Before(t0.Add(20 * time.Second)); at = at.Add(500 * time.Millisecond) {
		h.tick(at)
		for len(a.out) > 0 {
			if m := next(t, a); m.Type == roomproto.MsgPing {
				sendMsg(h, a, roomproto.Msg{Type: roomproto.MsgPong, N: m.N}, at)
			}
		}
	}
	if a.killed || a.role != roleHost {
		t.Fatal("a host that served lost the room")
	}
}
