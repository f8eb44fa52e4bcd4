package relay

import (
	"testing"
	"time"

	"github.com/pion/turn/v5"
)

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

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
