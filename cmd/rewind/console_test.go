package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
)

const testAdminToken = "console-test-token-0123456789"

// consoleURL is the http:// base of a relay's ws:// rooms URL.
func consoleURL(wsURL string) string {
	return "http" + strings.TrimSuffix(strings.TrimPrefix(wsURL, "ws"), roomproto.Path)
}

// consoleState reads /console/api/state.
func consoleState(t *testing.T, base string) console.Snapshot {
	t.Helper()
	resp, err := http.Get(base + console.Path + "/api/state")
	for tries := 0; err == nil && resp.StatusCode == http.StatusTooManyRequests && tries < 50; tries++ {
		resp.Body.Close() // the console's rate per address (10 a second): the tests may poll faster
		time.Sleep(250 * time.Millisecond)
		resp, err = http.Get(base + console.Path + "/api/state")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s console.Snapshot
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// postAction posts a console action, with the token unless it is "".
func postAction(t *testing.T, base, action, token, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", base+console.Path+"/api/"+action, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// writeToken writes the admin token to a file and returns its path.
func writeToken(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "admin-token")
	if err := os.WriteFile(p, []byte(testAdminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startServeRooms runs `rewind serve --relay URL --rooms N` (and the
// flags of extra) until ctx ends and returns its room codes and a wait
// for it.
func startServeRooms(ctx context.Context, t *testing.T, url string, n int, extra ...string) ([]string, func()) {
	t.Helper()
	codes, _, wait := startServeRoomsHTTP(ctx, t, url, n, extra...)
	return codes, wait
}

// startServeRoomsHTTP is startServeRooms that also returns serve's
// http= address, which extra's --http makes it print after the codes.
func startServeRoomsHTTP(ctx context.Context, t *testing.T, url string, n int, extra ...string) (codes []string, httpAddr string, wait func()) {
	t.Helper()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		args := append([]string{"--game", "sand", "--grid", "32", "--relay", url, "--rooms", strconv.Itoa(n), "--status", "0"}, extra...)
		served <- serve(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	wantHTTP := slices.Contains(extra, "--http")
	for (len(codes) < n || wantHTTP && httpAddr == "") && sc.Scan() {
		if c, ok := strings.CutPrefix(sc.Text(), "room="); ok {
			codes = append(codes, c)
		}
		if a, ok := strings.CutPrefix(sc.Text(), "http="); ok {
			httpAddr = a
		}
	}
	go io.Copy(io.Discard, pr)
	if len(codes) < n || wantHTTP && httpAddr == "" {
		t.Fatalf("serve printed rooms %v and http=%q: %v", codes, httpAddr, <-served)
	}
	return codes, httpAddr, func() {
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}

// TestConsoleRelayCommands runs `rewind relay --console --admin-token F`
// and `rewind serve --relay URL --rooms 2`; a bot plays in the first
// room: the console's state lists both rooms and the bot, an end without
// the token is 401 and changes nothing, with it the room ends (the bot
// stops) and leaves the list.
func TestConsoleRelayCommands(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, wait := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none", "--console", "--admin-token", writeToken(t))
	defer func() { cancel(); wait() }()
	base := consoleURL(url)
	sctx, scancel := context.WithCancel(ctx)
	codes, serveHTTP, swait := startServeRoomsHTTP(sctx, t, url, 2, "--http", "127.0.0.1:0", "--console")
	defer func() { scancel(); swait() }()
	var botOut, botErr string
	botDone := make(chan struct{})
	go func() {
		defer close(botDone)
		_, botOut, botErr = runCmd("play", "--headless", "--join", codes[0], "--relay", url, "--grid", "32", "--until-tick", "100000", "--status", "0")
	}()
	testutil.WaitUntil(ctx, t, "the console lists both rooms and the bot playing", func() bool {
		s := consoleState(t, base)
		if len(s.Rooms) != 2 || s.Source != "relay" {
			return false
		}
		for _, r := range s.Rooms {
			if r.Code == codes[0] {
				return len(r.Members) == 1 && r.Members[0].State == "playing" && strings.HasPrefix(r.Members[0].Addr, "#") &&
					strings.HasPrefix(r.Hosted, "match server ")
			}
		}
		return false
	})
	// The relay's "playing" is the bot's data channel, open before its
	// hello reaches the match: an end before then finds no match to end.
	// serve's own console says when the bot plays in a running match.
	testutil.WaitUntil(ctx, t, "the first room's match running with the bot", func() bool {
		r, ok := consoleRoom(consoleState(t, "http://"+serveHTTP), codes[0])
		return ok && serverFigures(r, 1)
	})
	body := `{"code":"` + codes[0] + `","reason":"closing for maintenance"}`
	if code := postAction(t, base, "end", "", body); code != http.StatusUnauthorized {
		t.Errorf("end without the token: %d, want 401", code)
	}
	if code := postAction(t, base, "end", "not-the-token-not-the-token", body); code != http.StatusUnauthorized {
		t.Errorf("end with a wrong token: %d, want 401", code)
	}
	if s := consoleState(t, base); len(s.Rooms) != 2 {
		t.Fatalf("a refused end changed the rooms: %+v", s.Rooms)
	}
	if code := postAction(t, base, "end", testAdminToken, body); code != http.StatusOK {
		t.Fatalf("end with the token: %d", code)
	}
	select {
	case <-botDone:
	case <-ctx.Done():
		t.Fatal("the bot still plays 60 s after the test began: the operator's end did not end the match")
	}
	if s := consoleState(t, base); len(s.Rooms) != 1 || s.Rooms[0].Code != codes[1] {
		t.Errorf("after the end: %+v", s.Rooms)
	}
	// The match server ends the room's match: its players hear the
	// operator's reason (ReasonOperator).
	if !strings.Contains(lastLine(botErr), "the operator ended the match") {
		t.Errorf("the bot's last lines say nothing of the operator's end: %q %q", lastLine(botOut), lastLine(botErr))
	}
}
