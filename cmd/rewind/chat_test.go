package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPlayChat runs `rewind serve` and two `rewind play --name NAME
// --chat-file FILE`: each logs every line of the other's file on stderr
// as `chat from=ID name=NAME text=...`, in order, and its stdout keeps only
// the key=value lines.
func TestPlayChat(t *testing.T) {
	checkLeaks(t)
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--players", "2")
	defer stop()
	dir := t.TempDir()
	names := []string{"ann", "bob"}
	var out, errOut [2]string
	var wg sync.WaitGroup
	for i, n := range names {
		file := filepath.Join(dir, n+".txt")
		if err := os.WriteFile(file, []byte("hi-from-"+n+"\nsecond-"+n+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			code, o, e := runCmd("play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "300", "--status", "0",
				"--name", n, "--chat-file", file)
			if code != 0 {
				t.Errorf("%s: exit %d\n%s", n, code, e)
			}
			out[i], errOut[i] = o, e
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	ids := [2]string{}
	for i := range names {
		for _, line := range strings.Split(strings.TrimSpace(out[i]), "\n") {
			if !strings.Contains(line, "=") {
				t.Errorf("%s: stdout line %q is not key=value", names[i], line)
			}
			if v, ok := strings.CutPrefix(line, "player="); ok {
				ids[i] = v
			}
		}
	}
	for i := range names {
		o := 1 - i
		first := strings.Index(errOut[i], "chat from="+ids[o]+" name="+names[o]+" text=hi-from-"+names[o])
		second := strings.Index(errOut[i], "chat from="+ids[o]+" name="+names[o]+" text=second-"+names[o])
		if first < 0 || second < first {
			t.Errorf("%s's stderr lacks %s's two lines in order (player %s):\n%s", names[i], names[o], ids[o], errOut[i])
		}
	}
}

// TestPlayReady runs `rewind serve` and two players, one with `--ready
// --name ann`: the other logs `ready player=ID name=ann ready=true` on
// stderr, and neither logs a ready flag as a chat line.
func TestPlayReady(t *testing.T) {
	checkLeaks(t)
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--players", "2")
	defer stop()
	var out, errOut [2]string
	var wg sync.WaitGroup
	for i, extra := range [][]string{{"--ready", "--name", "ann"}, {"--name", "bob"}} {
		wg.Go(func() {
			a := append([]string{"play", "--headless", "--connect", udp, "--until-tick", "120", "--status", "0"}, extra...)
			code, o, e := runCmd(a...)
			if code != 0 {
				t.Errorf("%q: exit %d\n%s", a, code, e)
			}
			out[i], errOut[i] = o, e
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	ann := ""
	for _, line := range strings.Split(out[0], "\n") {
		if v, ok := strings.CutPrefix(line, "player="); ok {
			ann = v
		}
	}
	if !strings.Contains(errOut[1], "msg=ready player="+ann+" name=ann ready=true") {
		t.Errorf("bob's stderr lacks ann's (player %s) ready flag:\n%s", ann, errOut[1])
	}
	for i, e := range errOut {
		if strings.Contains(e, "msg=chat") {
			t.Errorf("player %d logged a chat line without any said:\n%s", i, e)
		}
	}
}
