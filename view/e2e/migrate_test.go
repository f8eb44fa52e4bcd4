package e2e

import (
	"bufio"
	"context"
	"io"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lineProc is a running rewind command whose stdout lines are read.
type lineProc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *lockedBuffer
}

// startLines runs `rewind args...`; it is killed at the test's end.
func startLines(t testing.TB, args ...string) *lineProc {
	t.Helper()
	p := &lineProc{cmd: exec.Command(rewindBin(t), args...), lines: make(chan string, 64), stderr: &lockedBuffer{}}
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // nobody reads any more
			}
		}
		io.Copy(io.Discard, out)
		close(p.lines)
		_ = p.cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-done
	})
	return p
}

// line waits for a stdout line starting with prefix.
func (p *lineProc) line(t testing.TB, prefix string, limit time.Duration) string {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("%v ended before a line %q; stderr:\n%s", p.cmd.Args, prefix, p.stderr)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("%v printed no line %q within %v; stderr:\n%s", p.cmd.Args, prefix, limit, p.stderr)
		}
	}
}

// migrateUntil is where the tab and the bot of TestTabMigrates stop: 15 s
// after the host is killed at about tick 600.
const migrateUntil = 1500

// TestTabMigrates: an outside `rewind relay`, `rewind serve
// --host-migration --players 2` hosting a room, one headless bot (`rewind
// play --join`) and one Chromium tab on the page (served by `rewind demo`,
// told the room and the relay by ?room= and ?relay=). The serve process
// is killed (SIGKILL) at about tick 600: the bot or the tab takes the
// hosting over (whichever claims first: a tab hosts too), the other
// migrates to it, both keep their player ids, exactly one ends hosting,
// and both reach the same verified hash at tick 1500.
func TestTabMigrates(t *testing.T) {
	relayProc := startLines(t, "relay", "--http", "127.0.0.1:0", "--turn", "none")
	relayURL := fields(relayProc.line(t, "relay=listening", time.Minute))["url"]
	if relayURL == "" {
		t.Fatal("rewind relay printed no url=")
	}
	serve := startLines(t, "serve", "--game", "sand", "--relay", relayURL, "--host-migration", "--players", "2",
		"--status", "0", "--log-level", "warn")
	code := strings.TrimPrefix(serve.line(t, "room=", time.Minute), "room=")
	d := startDemo(t) // only serves the page

	b := chromium(t)
	pageURL := d.url + "?room=" + code + "&relay=" + url.QueryEscape(relayURL) + "&until-tick=" + strconv.Itoa(migrateUntil)
	start := time.Now()
	tb := tab(t, b, pageURL)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--join", code, "--relay", relayURL,
		"--until-tick", strconv.Itoa(migrateUntil), "--status", "0", "--log-level", "warn", "--timeout", "10s")

	st := waitStatus(t, tb, "the tab joins", 2*time.Minute, func(st map[string]string) bool { return st["player"] != "-" })
	if st["room"] != code {
		t.Fatalf("the tab joined room %q, want %s (?room=)", st["room"], code)
	}
	id := st["player"]
	waitStatus(t, tb, "the tab verifies tick 600", 2*time.Minute, func(st map[string]string) bool { return num(t, st, "verified_tick") >= 600 })
	if err := serve.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	t.Logf("serve killed %v after the page opened", killed.Sub(start).Round(time.Millisecond))
	waitStatus(t, tb, "the tab migrates", time.Minute, func(st map[string]string) bool { return st["migrations"] == "1" })
	t.Logf("the tab's migrations=1 %v after the kill", time.Since(killed).Round(time.Millisecond))

	done := func(st map[string]string) bool { return st["state"] == "done" || st["state"] == "failed" }
	tabEnd := waitStatus(t, tb, "the tab reaches the until tick", 2*time.Minute, done)
	botEnd := bot.result(t, "rewind play")
	t.Logf("tick %d: tab %v; bot %v", migrateUntil, tabEnd, botEnd)
	for name, st := range map[string]map[string]string{"tab": tabEnd, "bot": botEnd} {
		if st["verified_tick"] != strconv.Itoa(migrateUntil) || len(st["verified_hash"]) != 16 || st["migrations"] != "1" {
			t.Errorf("%s ended with %v", name, st)
		}
	}
	if tabEnd["state"] != "done" {
		t.Errorf("the tab ended in state %s", tabEnd["state"])
	}
	if tabEnd["verified_hash"] != botEnd["verified_hash"] {
		t.Errorf("verified hashes at tick %d differ: tab %s, bot %s", migrateUntil, tabEnd["verified_hash"], botEnd["verified_hash"])
	}
	if tabEnd["player"] != id {
		t.Errorf("the tab was player %s before the migration and %s after", id, tabEnd["player"])
	}
	if botEnd["player"] == id {
		t.Errorf("the bot is player %s, as the tab", id)
	}
	if (tabEnd["hosting"] == "true") == (botEnd["hosting"] == "true") {
		t.Errorf("exactly one of them should end as the host: tab hosting=%s, bot hosting=%s", tabEnd["hosting"], botEnd["hosting"])
	}
}
