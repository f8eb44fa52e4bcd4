package relay

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/turn/v5"
	"github.com/rewindnet/rewind/relay/roomproto"
)

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// syncClock is a made-up clock that a server's goroutines may read while
// the test moves it.
type syncClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *syncClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *syncClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestTURNCredentials checks the REST-API credentials in made-up time:
// accepted until they expire, refused after, and refused when forged.
func TestTURNCredentials(t *testing.T) {
	clock := &fakeClock{now: t0}
	ts, err := StartTURN(TURNConfig{Listen: "127.0.0.1:0", Secret: []byte("s3cret"), CredentialTTL: time.Hour, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ice := ts.Credentials("ABC234-p1", t0)
	if len(ice.URLs) != 1 || ice.URLs[0] != ts.URL() {
		t.Fatalf("urls %v", ice.URLs)
	}
	check := func(user, pass string) bool {
		ra := &turn.RequestAttributes{Username: user, Realm: "rewind"}
		_, key, ok := ts.auth(ra)
		return ok && string(key) == string(turn.GenerateAuthKey(user, "rewind", pass))
	}
	if !check(ice.Username, ice.Credential) {
		t.Fatal("fresh credentials refused")
	}
	if check(ice.Username, "forged") {
		t.Fatal("wrong password accepted")
	}
	clock.now = t0.Add(59 * time.Minute)
	if !check(ice.Username, ice.Credential) {
		t.Fatal("credentials refused before expiry")
	}
	clock.now = t0.Add(61 * time.Minute)
	if check(ice.Username, ice.Credential) {
		t.Fatal("expired credentials accepted")
	}
	// Another relay process with the same secret derives the same password.
	_, pass := TURNCredentials([]byte("s3cret"), "ABC234-p1", t0.Add(time.Hour))
	if pass != ice.Credential {
		t.Fatal("credentials not derived from the shared secret alone")
	}
	if _, _, ok := ts.auth(&turn.RequestAttributes{Username: "no-colon"}); ok {
		t.Fatal("user name without expiry accepted")
	}
}

// TestTURNRenewsLiveAllocations: an allocation made with a credential
// of a one-hour life is used past the hour (made-up time): a new
// permission on it is refused while the relay says the credential's room
// is gone, and taken (the datagram reaches its peer) while the room
// lives; a new allocation with the expired credential is refused either
// way.
func TestTURNRenewsLiveAllocations(t *testing.T) {
	clock := &syncClock{now: time.Now()}
	ts, err := StartTURN(TURNConfig{Listen: "127.0.0.1:0", Secret: []byte("s3cret"), CredentialTTL: time.Hour, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	var live atomic.Bool
	ts.setLive(func(user string) bool { return user == "ABC234-p1" && live.Load() })
	ice := ts.Credentials("ABC234-p1", clock.Now())
	newClient := func() *turn.Client {
		t.Helper()
		conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		c, err := turn.NewClient(&turn.ClientConfig{STUNServerAddr: ts.Addr().String(), TURNServerAddr: ts.Addr().String(),
			Conn: conn, Username: ice.Username, Password: ice.Credential, Realm: "rewind"})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Listen(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(); conn.Close() })
		return c
	}
	relayed, err := newClient().Allocate()
	if err != nil {
		t.Fatal(err)
	}
	defer relayed.Close()
	// Permissions are per peer IP: each peer on its own loopback address.
	send := func(ip string) error {
		t.Helper()
		peer, err := net.ListenPacket("udp4", ip+":0")
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		if _, err := relayed.WriteTo([]byte("hello "+ip), peer.LocalAddr()); err != nil {
			return err
		}
		buf := make([]byte, 64)
		peer.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, _, err := peer.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "hello "+ip {
			t.Fatalf("peer %s got %q, %v", ip, buf[:n], err)
		}
		return nil
	}
	if err := send("127.0.0.2"); err != nil {
		t.Fatalf("before the credential's expiry: %v", err)
	}
	clock.add(2 * time.Hour)
	if err := send("127.0.0.3"); err == nil {
		t.Fatal("a permission taken with an expired credential of a room that is gone")
	}
	live.Store(true)
	if err := send("127.0.0.4"); err != nil {
		t.Fatalf("a permission refused on an allocation of a live room: %v", err)
	}
	if ts.Renewed() == 0 {
		t.Error("Renewed counted nothing")
	}
	if _, err := newClient().Allocate(); err == nil {
		t.Fatal("a new allocation with an expired credential")
	}
}

// TestHubRenewsICE: with credentials of a one-hour life, a room's host
// and a match server are handed fresh ones ("ice") half an hour after
// theirs, not before (made-up time); the TURN server's check of a
// credential's room says live while the room and the server are, and not
// after.
func TestHubRenewsICE(t *testing.T) {
	clock := &fakeClock{now: t0}
	ts, err := StartTURN(TURNConfig{Listen: "127.0.0.1:0", Secret: []byte("s3cret"), CredentialTTL: time.Hour, Clock: clock})
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
