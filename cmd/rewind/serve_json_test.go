package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// startServeJSON runs `rewind serve` in-process with args (which hold
// --json) and returns the json= URL, the lines printed before it, and
// stop, which returns the rest of standard output.
func startServeJSON(t *testing.T, args ...string) (url string, before []string, stop func() string) {
	t.Helper()
	testutil.SkipSockets(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "json="); ok {
			url = v
			break
		}
		before = append(before, sc.Text())
	}
	if url == "" {
		cancel()
		t.Fatalf("serve printed no json= line: %q (%v)", before, <-done)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, pr); close(copied) }()
	return url, before, func() string {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		<-copied
		return out.String()
	}
}

// TestServeJSONNode is the command contract of the JSON gateway and its
// reference client: `rewind serve --game walkers --json 127.0.0.1:0`
// prints json=ws://HOST:PORT/ (and, without --udp, opens no UDP socket:
// no udp= line, no udp key at the end), and the Node client of
// games/walkers/js plays 2,000 ticks through it, its own simulation's
// hash equal to stateHash on every tick, dropping its connection midway
// and resuming in its slot.
func TestServeJSONNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found on PATH: the JavaScript reference client (games/walkers/js) needs Node 20 or later")
	}
	url, before, stop := startServeJSON(t, "--game", "walkers", "--json", "127.0.0.1:0", "--players", "1", "--tick-rate", "200", "--status", "0")
	for _, l := range before {
		if strings.HasPrefix(l, "udp=") {
			t.Fatalf("serve --json without --udp printed %q", l)
		}
	}
	if !strings.HasPrefix(url, "ws://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("json=%s", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--experimental-websocket", "../../games/walkers/js/client.js", url, "--ticks", "2000")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	got := kv(lastLine(string(out)))
	if got["ok"] != "true" || got["ticks"] != "2000" || got["mismatches"] != "0" || got["resumes"] != "1" || got["errors"] != "0" {
		t.Fatalf("node client: %s", out)
	}
	end := kv(lastLine(stop()))
	if _, ok := end["udp"]; ok || end["json"] != url || end["json_resumes"] != "1" || end["json_connections"] != "2" {
		t.Fatalf("serve's last line: %v", end)
	}
}

// TestDemoLockstep: `rewind demo` serves the JSON gateway at /lockstep on
// its HTTP port (printed as lockstep=): a JSON client plays sand in the
// room's match, its input scheduled with its sequence.
func TestDemoLockstep(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	d := startCommand(t, demo, []string{"--http", "127.0.0.1:0", "--grid", "32", "--players", "1", "--no-page"}, "room", "lockstep")
	url := d.vals["lockstep"]
	if !strings.HasPrefix(url, "ws://127.0.0.1:") || !strings.HasSuffix(url, "/lockstep") {
		t.Fatalf("lockstep=%s", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	read := func() (string, json.RawMessage) {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m.Type, m.Payload
	}
	typ, p := read()
	var in struct {
		PlayerID int                        `json:"playerId"`
		State    map[string]json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(p, &in); typ != "initial_state" || err != nil || in.PlayerID != 0 || in.State["cells"] == nil {
		t.Fatalf("%s %s (%v)", typ, p, err)
	}
	msg := `{"protocolVersion":2,"type":"input","payload":{"sequence":1,"input":{"MoveX":1,"MoveY":0,"Pour":true,"Material":2}}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	for {
		typ, p := read()
		if typ != "tick" {
			t.Fatalf("%s %s", typ, p)
		}
		if strings.Contains(string(p), `"commands":[{"playerId":0,"sequence":1,"input":{"MoveX":1,"MoveY":0,"Pour":true,"Material":2}}]`) {
			break
		}
	}
	ws.Close(websocket.StatusNormalClosure, "")
	d.stop(t)
}
