package relay

import (
	"strconv"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/relay/turn"
)

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// TestHubRenewsICE: with credentials of a one-hour life, a room's host
// and a match server are handed fresh ones ("ice") half an hour after
// theirs, not before (made-up time); the TURN server's check of a
// credential's room says live while the room and the server are, and not
// after.
func TestHubRenewsICE(t *testing.T) {
	clock := &fakeClock{now: t0}
	ts, err := turn.Start(turn.Config{Listen: "127.0.0.1:0", Secret: []byte("s3cret"), CredentialTTL: time.Hour, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	h := newTestHub(RoomConfig{TURN: ts})
	host, hosted := hostRoom(t, h, "")
	srv := startServer(t, h, "10.0.0.5", 2, false)
	h.tick(t0)
	ices := func(c *roomConn, now time.Time) []roomproto.Msg {
		var got []roomproto.Msg
		for _, m := range pump(t, h, c, now) {
			if m.Type == roomproto.MsgICE {
				got = append(got, m)
			}
		}
		return got
	}
	for _, at := range []time.Duration{29 * time.Minute, 30 * time.Minute} {
		now := t0.Add(at)
		h.tick(now)
		for i, c := range []*roomConn{host, srv} {
			got := ices(c, now)
			if at < 30*time.Minute {
				if len(got) != 0 {
					t.Fatalf("conn %d handed credentials %v after its own", i, at)
				}
				continue
			}
			wantUser := strconv.FormatInt(now.Add(time.Hour).Unix(), 10) + ":" + hosted.Code + "-host"
			if i == 1 {
				wantUser = strconv.FormatInt(now.Add(time.Hour).Unix(), 10) + ":server-" + strconv.FormatUint(srv.id, 10)
			}
			if len(got) != 1 || len(got[0].ICE) != 1 || got[0].ICE[0].Username != wantUser {
				t.Fatalf("conn %d at %v: %+v, want one ice for %s", i, at, got, wantUser)
			}
		}
	}
	server := "server-" + strconv.FormatUint(srv.id, 10)
	for _, user := range []string{hosted.Code + "-host", hosted.Code + "-p1", server} {
		if !h.liveMember(user) {
			t.Errorf("%s: not live", user)
		}
	}
	h.disconnect(host, t0.Add(31*time.Minute))
	h.disconnect(srv, t0.Add(31*time.Minute))
	for _, user := range []string{hosted.Code + "-host", server, "nodash", "server-x"} {
		if h.liveMember(user) {
			t.Errorf("%s: live after its room and server went", user)
		}
	}
}
