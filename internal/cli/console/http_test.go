package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeActor records the actions it is asked for.
type fakeActor struct{ done []string }

func (a *fakeActor) EndMatch(code, why string) error {
	if code != "AAAAAA" {
		return fmt.Errorf("%w: %s", ErrNotFound, code)
	}
	a.done = append(a.done, "end "+code+" "+why)
	return nil
}
func (a *fakeActor) RemovePlayer(code, id, why string) error {
	a.done = append(a.done, "remove "+code+" "+id)
	return nil
}
func (a *fakeActor) CloseRoom(code string) error { return ErrUnsupported }
func (a *fakeActor) Drain() error {
	a.done = append(a.done, "drain")
	return nil
}

const testToken = "0123456789abcdef-secret"

func newTestConsole(t *testing.T, token []byte) (*httptest.Server, *fakeActor) {
	t.Helper()
	src := &fakeSource{snap: Snapshot{Source: "relay", Rooms: []Room{{Code: "AAAAAA", Players: 1,
		Members: []Player{{ID: "p1", State: "playing", Addr: "127.0.0.1:5555"}}}}}}
	a := &fakeActor{}
	c := New(Options{Provider: src, Actor: a, Token: token})
	mux := http.NewServeMux()
	c.Mount(mux)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts, a
}

func do(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text())
	}
	return resp.StatusCode, b.String()
}

// TestLoadToken: a token file's content, trimmed; short or missing files fail.
func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "good"), filepath.Join(dir, "short")
	os.WriteFile(good, []byte("  "+testToken+"\n"), 0o600)
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if tok, err := LoadToken(good); err != nil || string(tok) != testToken {
		t.Errorf("LoadToken(good) = %q, %v", tok, err)
	}
	for _, p := range []string{short, filepath.Join(dir, "none")} {
		if _, err := LoadToken(p); err == nil {
			t.Errorf("LoadToken(%s) succeeded", p)
		}
	}
}

// TestAuthorized: only the exact bearer token passes.
func TestAuthorized(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"Bearer " + testToken, true},
		{"Bearer " + testToken + "x", false},
		{"Bearer " + testToken[:len(testToken)-1], false},
		{"Basic " + testToken, false},
		{testToken, false},
		{"", false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if got := Authorized(r, []byte(testToken)); got != c.want {
			t.Errorf("%q: %v, want %v", c.header, got, c.want)
		}
		if Authorized(r, nil) {
			t.Errorf("%q passed without a token configured", c.header)
		}
	}
}

// TestActions: with a token, an action without it is 401 and with it is
// done; unknown rooms 404, unsupported actions 501; without a token the
// console is read-only (403).
func TestActions(t *testing.T) {
	ts, a := newTestConsole(t, []byte(testToken))
	end := ts.URL + Path + "/api/end"
	if code, _ := do(t, "POST", end, "", `{"code":"AAAAAA"}`); code != 401 {
		t.Errorf("end without the token: %d, want 401", code)
	}
	if code, _ := do(t, "POST", end, "wrong-token-wrong-token", `{"code":"AAAAAA"}`); code != 401 {
		t.Errorf("end with a wrong token: %d, want 401", code)
	}
	if len(a.done) != 0 {
		t.Fatalf("refused requests acted: %v", a.done)
	}
	if code, body := do(t, "POST", end, testToken, `{"code":"aaaaaa","reason":"server update"}`); code != 200 {
		t.Errorf("end with the token: %d %s", code, body)
	}
	if code, _ := do(t, "POST", end, testToken, `{"code":"BBBBBB"}`); code != 404 {
		t.Errorf("end of an unknown room: %d, want 404", code)
	}
	if code, _ := do(t, "POST", ts.URL+Path+"/api/close", testToken, `{"code":"AAAAAA"}`); code != 501 {
		t.Errorf("unsupported close: %d, want 501", code)
	}
	if code, _ := do(t, "POST", ts.URL+Path+"/api/remove", testToken, `{"code":"AAAAAA"}`); code != 400 {
		t.Errorf("remove without a player: %d, want 400", code)
	}
	if code, _ := do(t, "POST", ts.URL+Path+"/api/drain", testToken, ``); code != 200 {
		t.Errorf("drain: %d", code)
	}
	if want := "end AAAAAA server update|drain"; strings.Join(a.done, "|") != want {
		t.Errorf("actions done %q, want %q", strings.Join(a.done, "|"), want)
	}

	ro, ra := newTestConsole(t, nil)
	if code, _ := do(t, "POST", ro.URL+Path+"/api/end", testToken, `{"code":"AAAAAA"}`); code != 403 {
		t.Errorf("read-only console's end: %d, want 403", code)
	}
	if len(ra.done) != 0 {
		t.Errorf("read-only console acted: %v", ra.done)
	}
}

// TestStateHidesAddresses: addresses are hashed unless asked for with the
// token; asking without it is 401. The page and its script are served.
func TestStateHidesAddresses(t *testing.T) {
	ts, _ := newTestConsole(t, []byte(testToken))
	var snap Snapshot
	code, body := do(t, "GET", ts.URL+Path+"/api/state", "", "")
	if err := json.Unmarshal([]byte(body), &snap); code != 200 || err != nil {
		t.Fatalf("state: %d %s", code, body)
	}
	if a := snap.Rooms[0].Members[0].Addr; !strings.HasPrefix(a, "#") || strings.Contains(a, "127.0.0.1") {
		t.Errorf("address shown as %q, want a hash", a)
	}
	if code, _ := do(t, "GET", ts.URL+Path+"/api/state?addrs=1", "", ""); code != 401 {
		t.Errorf("addresses without the token: %d, want 401", code)
	}
	code, body = do(t, "GET", ts.URL+Path+"/api/state?addrs=1", testToken, "")
	if code != 200 || !strings.Contains(body, "127.0.0.1:5555") {
		t.Errorf("addresses with the token: %d %s", code, body)
	}
	for _, p := range []string{Path, Path + "/console.js", Path + "/console.css"} {
		if code, body := do(t, "GET", ts.URL+p, "", ""); code != 200 || len(body) < 100 {
			t.Errorf("%s: %d, %d bytes", p, code, len(body))
		}
	}
}

// TestEventsStream: the stream sends the history and a snapshot at once.
func TestEventsStream(t *testing.T) {
	ts, _ := newTestConsole(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+Path+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	var events []string
	for len(events) < 2 && sc.Scan() {
		if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, ev)
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && len(events) == 2 && !strings.Contains(d, `"AAAAAA"`) {
			t.Errorf("snapshot %s", d)
		}
	}
	if strings.Join(events, ",") != "history,snapshot" {
		t.Errorf("events %v", events)
	}
}
