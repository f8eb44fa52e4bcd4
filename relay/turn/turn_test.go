package turn

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pionturn "github.com/pion/turn/v5"
)

// t0 is the made-up time the tests start at.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

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
func TestCredentials(t *testing.T) {
	clock := &fakeClock{now: t0}
	ts, err := Start(Config{Listen: "127.0.0.1:0", Secret: []byte("s3cret"), CredentialTTL: time.Hour, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ice := ts.Credentials("ABC234-p1", t0)
	if len(ice.URLs) != 1 || ice.URLs[0] != ts.URL() {
		t.Fatalf("urls %v", ice.URLs)
	}
	check := func(user, pass string) bool {
		ra := &pionturn.RequestAttributes{Username: user, Realm: "rewind"}
		_, key, ok := ts.auth(ra)
		return ok && string(key) == string(pionturn.GenerateAuthKey(user, "rewind", pass))
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
	_, pass := Credentials([]byte("s3cret"), "ABC234-p1", t0.Add(time.Hour))
	if pass != ice.Credential {
		t.Fatal("credentials not derived from the shared secret alone")
	}
	if _, _, ok := ts.auth(&pionturn.RequestAttributes{Username: "no-colon"}); ok {
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
	ts, err := Start(Config{Listen: "127.0.0.1:0", Secret: []byte("s3cret"), CredentialTTL: time.Hour, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	var live atomic.Bool
	ts.SetLive(func(user string) bool { return user == "ABC234-p1" && live.Load() })
	ice := ts.Credentials("ABC234-p1", clock.Now())
	newClient := func() *pionturn.Client {
		t.Helper()
		conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		c, err := pionturn.NewClient(&pionturn.ClientConfig{STUNServerAddr: ts.Addr().String(), TURNServerAddr: ts.Addr().String(),
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
