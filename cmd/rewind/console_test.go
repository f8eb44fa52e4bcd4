package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/console"
	"github.com/rewindnet/rewind/internal/testutil"
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

// startServeRooms runs `rewind serve --relay URL --rooms N` until ctx
// ends and returns its room codes and a wait for it.
func startServeRooms(ctx context.Context, t *testing.T, url string, n int) ([]string, func()) {
	t.Helper()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(ctx, []string{"--game", "sand", "--grid", "32", "--relay", url, "--rooms", itoa(n), "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var codes []string
	for len(codes) < n && sc.Scan() {
		if c, ok := strings.CutPrefix(sc.Text(), "room="); ok {
			codes = append(codes, c)
		}
	}
	go io.Copy(io.Discard, pr)
	if len(codes) < n {
		t.Fatalf("serve printed %v: %v", codes, <-served)
	}
	return codes, func() {
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
	codes, swait := startServeRooms(sctx, t, url, 2)
	defer func() { scancel(); swait() }()
	var wg sync.WaitGroup
	var botOut, botErr string
	wg.Go(func() {
		_, botOut, botErr = runCmd("play", "--headless", "--join", codes[0], "--relay", url, "--grid", "32", "--until-tick", "100000", "--status", "0")
	})
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
	wg.Wait()
	if s := consoleState(t, base); len(s.Rooms) != 1 || s.Rooms[0].Code != codes[1] {
		t.Errorf("after the end: %+v", s.Rooms)
	}
	// The match server ends the room's match: its players hear the
	// operator's reason (ReasonOperator).
	if !strings.Contains(lastLine(botErr), "the operator ended the match") {
		t.Errorf("the bot's last lines say nothing of the operator's end: %q %q", lastLine(botOut), lastLine(botErr))
	}
}
