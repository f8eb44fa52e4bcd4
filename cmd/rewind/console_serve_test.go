package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// botResult is one `rewind play` bot's run, sent when it returns.
type botResult struct {
	code           int
	stdout, stderr string
}

// startBot runs `rewind play ARGS` in the background.
func startBot(args ...string) <-chan botResult {
	c := make(chan botResult, 1)
	go func() {
		code, o, e := runCmd(append([]string{"play"}, args...)...)
		c <- botResult{code, o, e}
	}()
	return c
}

// consoleRoom returns the console's room with the code.
func consoleRoom(s console.Snapshot, code string) (console.Room, bool) {
	for _, r := range s.Rooms {
		if r.Code == code {
			return r, true
		}
	}
	return console.Room{}, false
}

// serverFigures reports whether r's match has run 30 ticks and every
// member of r is playing with the figures a match server knows (ping,
// late inputs, repairs, rebases) and a hashed address.
func serverFigures(r console.Room, players int) bool {
	if r.Players != players || len(r.Members) != players || r.Tick == nil || *r.Tick < 30 || r.Game != "sand" {
		return false
	}
	for _, m := range r.Members {
		if m.State != "playing" || m.PingMS == nil || m.LateInputs == nil || m.Desyncs == nil || m.Resyncs == nil || !strings.HasPrefix(m.Addr, "#") {
			return false
		}
	}
	return true
}

// TestConsoleServeCommands runs `rewind serve --udp --http --console
// --admin-token F` with two bots: the console lists the match and both
// players with the server's figures; a removal without the token is 401,
// with it the bot is dropped (kicked); closed, the match refuses a third
// bot (full); the operator's end ends the other bot, whose last lines
// say the operator ended it; a drain makes /readyz answer 503.
func TestConsoleServeCommands(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	udp, httpAddr, stop := startServe(t, "--game", "sand", "--grid", "32", "--udp", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--players", "2", "--status", "0", "--console", "--admin-token", writeToken(t))
	base := "http://" + httpAddr
	bot := []string{"--headless", "--connect", udp, "--grid", "32", "--until-tick", "100000", "--status", "0"}
	bots := []<-chan botResult{startBot(bot...), startBot(bot...)}
	testutil.WaitUntil(ctx, t, "the console lists the match and both players", func() bool {
		s := consoleState(t, base)
		r, ok := consoleRoom(s, singleMatch)
		return s.Source == "serve" && len(s.Rooms) == 1 && ok && serverFigures(r, 2)
	})
	if code := postAction(t, base, "remove", "", `{"code":"MATCH","player":"1"}`); code != http.StatusUnauthorized {
		t.Errorf("remove without the token: %d, want 401", code)
	}
	if code := postAction(t, base, "remove", testAdminToken, `{"code":"MATCH","player":"1"}`); code != http.StatusOK {
		t.Fatalf("remove: %d", code)
	}
	var removed botResult
	select {
	case removed = <-bots[0]:
		bots = bots[1:]
	case removed = <-bots[1]:
		bots = bots[:1]
	case <-ctx.Done():
		t.Fatal("no bot was removed")
	}
	if removed.code == 0 || !strings.Contains(lastLine(removed.stderr), "kicked") {
		t.Errorf("the removed bot: exit %d, %q", removed.code, lastLine(removed.stderr))
	}
	if code := postAction(t, base, "close", testAdminToken, `{"code":"MATCH"}`); code != http.StatusOK {
		t.Fatalf("close: %d", code)
	}
	if r, _ := consoleRoom(consoleState(t, base), singleMatch); !r.Closed {
		t.Errorf("closed match not shown closed: %+v", r)
	}
	third := <-startBot("--headless", "--connect", udp, "--grid", "32", "--until-tick", "10", "--status", "0")
	if third.code == 0 || !strings.Contains(third.stderr, "match full") {
		t.Errorf("a bot joining the closed match: exit %d, %q", third.code, lastLine(third.stderr))
	}
	if code := postAction(t, base, "end", testAdminToken, `{"code":"MATCH"}`); code != http.StatusOK {
		t.Fatalf("end: %d", code)
	}
	if last := <-bots[0]; last.code != 0 || !strings.Contains(lastLine(last.stderr), "the operator ended the match") || !strings.HasPrefix(lastLine(last.stdout), "verified_tick=") {
		t.Errorf("the last bot: exit %d, %q %q", last.code, lastLine(last.stdout), lastLine(last.stderr))
	}
	if code := postAction(t, base, "drain", testAdminToken, `{}`); code != http.StatusOK {
		t.Fatalf("drain: %d", code)
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz after the drain: %d, want 503", resp.StatusCode)
	}
	stop()
}

// TestConsoleServeRooms runs `rewind serve --rooms 2 --http --console`
// (many matches on one socket, no token): the console lists both rooms
// and a bot with the server's figures, actions are refused (403: read
// only), and the page is served.
func TestConsoleServeRooms(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	udp, httpAddr, stop := startServe(t, "--game", "sand", "--grid", "32", "--udp", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--rooms", "2", "--status", "0", "--console")
	base := "http://" + httpAddr
	var code string
	testutil.WaitUntil(ctx, t, "two rooms", func() bool {
		s := consoleState(t, base)
		if len(s.Rooms) == 2 {
			code = s.Rooms[1].Code
		}
		return len(s.Rooms) == 2
	})
	bot := startBot("--headless", "--connect", udp, "--room", code, "--grid", "32", "--until-tick", "120", "--status", "0")
	testutil.WaitUntil(ctx, t, "the bot in room "+code, func() bool {
		r, ok := consoleRoom(consoleState(t, base), code)
		return ok && serverFigures(r, 1) && strings.HasPrefix(r.Hosted, "here, udp ")
	})
	if c := postAction(t, base, "end", testAdminToken, `{"code":"`+code+`"}`); c != http.StatusForbidden {
		t.Errorf("an action on a read-only console: %d, want 403", c)
	}
	resp, err := http.Get(base + console.Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the page: %d", resp.StatusCode)
	}
	if b := <-bot; b.code != 0 {
		t.Errorf("the bot: exit %d, %q", b.code, lastLine(b.stderr))
	}
	stop()
}

// TestConsoleDemoCommand runs `rewind demo --console --admin-token F`
// with two bots joining by the code: the console lists the demo's room
// with the match server's figures of both; the operator's end ends both
// bots, whose last lines say so.
func TestConsoleDemoCommand(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d := startCommand(t, demo, []string{"--http", "127.0.0.1:0", "--grid", "32", "--players", "2", "--no-page", "--turn", "none",
		"--console", "--admin-token", writeToken(t)}, "room", "relay", "url")
	code, relayURL, base := d.vals["room"], d.vals["relay"], strings.TrimSuffix(d.vals["url"], "/")
	var wg sync.WaitGroup
	res := make([]botResult, 2)
	for i := range res {
		wg.Go(func() {
			res[i] = <-startBot("--headless", "--join", code, "--relay", relayURL, "--grid", "32", "--until-tick", "100000", "--status", "0")
		})
	}
	testutil.WaitUntil(ctx, t, "the console lists the demo's room and both bots", func() bool {
		s := consoleState(t, base)
		r, ok := consoleRoom(s, code)
		return s.Source == "demo" && ok && serverFigures(r, 2) && strings.HasPrefix(r.Hosted, "here")
	})
	if c := postAction(t, base, "end", testAdminToken, `{"code":"`+code+`"}`); c != http.StatusOK {
		t.Fatalf("end: %d", c)
	}
	wg.Wait()
	for i, b := range res {
		if b.code != 0 || !strings.Contains(lastLine(b.stderr), "the operator ended the match") {
			t.Errorf("bot %d: exit %d, %q %q", i, b.code, lastLine(b.stdout), lastLine(b.stderr))
		}
	}
	d.stop(t)
}

// TestConsoleRelayEndsServeRoom: a relay's console ends the room of a
// `serve --relay` of one room (rooms.Host) whose match runs: the match
// ends too, and its bot's last lines say the operator ended it.
func TestConsoleRelayEndsServeRoom(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, wait := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none", "--console", "--admin-token", writeToken(t))
	defer func() { cancel(); wait() }()
	base := consoleURL(url)
	s := startCommand(t, serve, []string{"--game", "sand", "--grid", "32", "--relay", url, "--status", "0",
		"--http", "127.0.0.1:0", "--console"}, "room", "http")
	code, serveBase := s.vals["room"], "http://"+s.vals["http"]
	bot := startBot("--headless", "--join", code, "--relay", url, "--grid", "32", "--until-tick", "100000", "--status", "0")
	testutil.WaitUntil(ctx, t, "the bot playing in the served room", func() bool {
		r, ok := consoleRoom(consoleState(t, base), code)
		return ok && len(r.Members) == 1 && r.Members[0].State == "playing"
	})
	// The relay's "playing" is the bot's data channel, open before its
	// hello reaches the match: an end before then finds no match to end
	// (matchhost.Host.EndMatch), and the hello starts a new one. serve's
	// own console says when the bot plays in a running match.
	testutil.WaitUntil(ctx, t, "the served room's match running with the bot", func() bool {
		r, ok := consoleRoom(consoleState(t, serveBase), code)
		return ok && serverFigures(r, 1)
	})
	if c := postAction(t, base, "end", testAdminToken, `{"code":"`+code+`"}`); c != http.StatusOK {
		t.Fatalf("end: %d", c)
	}
	select {
	case b := <-bot:
		if b.code != 0 || !strings.Contains(lastLine(b.stderr), "the operator ended the match") {
			t.Errorf("the bot: exit %d, %q %q", b.code, lastLine(b.stdout), lastLine(b.stderr))
		}
	case <-ctx.Done():
		t.Fatal("the bot still plays 60 s after the test began: the operator's end did not end the match")
	}
	s.stop(t)
}
