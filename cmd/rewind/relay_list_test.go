package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestPlayRelayListCommands runs two `rewind relay --redis URL` sharing
// one redis-server, `rewind serve --relay DEAD,FIRST --host-migration`
// hosting a sand match in one room through the first (DEAD a closed port
// on 127.0.0.1), and a `rewind play --join` and a `rewind watch --join` each
// given `--relay DEAD,SECOND`: both pass over DEAD and reach the match through the second relay (the player to
// tick 240 with no desync, the spectator to tick 60). A code that names
// no room is refused by the first live relay of the list (no room), the
// fleet's relays sharing one directory.
func TestPlayRelayListCommands(t *testing.T) {
	checkLeaks(t)
	redisURL := testutil.StartRedis(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "ws://" + ln.Addr().String() + roomproto.Path
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var urls []string
	var waits []func()
	for range 2 {
		u, w := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none", "--redis", redisURL)
		urls, waits = append(urls, u), append(waits, w)
	}
	defer func() {
		cancel()
		for _, w := range waits {
			w()
		}
	}()
	sctx, scancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", dead + "," + urls[0], "--host-migration",
			"--players", "1", "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	code := ""
	for code == "" && sc.Scan() {
		code, _ = strings.CutPrefix(sc.Text(), "room=")
	}
	go io.Copy(io.Discard, pr)
	if code == "" {
		scancel()
		t.Fatalf("serve printed no room= line: %v", <-served)
	}
	list := dead + "," + urls[1]
	type result struct {
		code           int
		stdout, stderr string
	}
	var wg sync.WaitGroup
	res := make([]result, 2)
	for i, args := range [][]string{
		{"play", "--headless", "--join", code, "--relay", list, "--grid", "32", "--until-tick", "240", "--status", "0"},
		{"watch", "--headless", "--join", code, "--relay", list, "--grid", "32", "--until-tick", "60", "--status", "0"},
	} {
		wg.Go(func() {
			c, o, e := runCmd(args...)
			res[i] = result{c, o, e}
		})
	}
	wg.Wait()
	for i, want := range []string{"240", "60"} {
		m := kv(lastLine(res[i].stdout))
		if res[i].code != 0 || m["verified_tick"] != want || m["desyncs"] != "0" {
			t.Errorf("%s through --relay %s: exit %d %q\n%s", []string{"play", "watch"}[i], list, res[i].code, lastLine(res[i].stdout), res[i].stderr)
		}
	}
	c, _, stderr := runCmd("play", "--headless", "--join", "ZZZZZZ", "--relay", urls[1]+","+urls[0], "--grid", "32", "--status", "0")
	if c != 1 || !strings.Contains(stderr, "no room ZZZZZZ") {
		t.Errorf("play --join ZZZZZZ: exit %d\n%s", c, stderr)
	}
	scancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}
