//go:build firefox

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// This file is not built by default (nor in CI): it needs Firefox
// (Debian's firefox-esr) and drives it over WebDriver BiDi, which
// Firefox speaks on --remote-debugging-port. view/README.md records
// what it found:
//
//	cd view && go test -tags firefox -count=1 -run TestFirefoxPlays -v ./e2e

// firefoxPrefs keep a headless Firefox on this machine: WebRTC over
// loopback (loopback candidates, real addresses instead of mDNS names)
// and nothing fetched from the network (a dead proxy for every host but
// loopback, no updates, telemetry or safe browsing lists).
const firefoxPrefs = `
user_pref("media.peerconnection.ice.loopback", true);
user_pref("media.peerconnection.ice.obfuscate_host_addresses", false);
user_pref("network.proxy.type", 1);
user_pref("network.proxy.http", "127.0.0.1");
user_pref("network.proxy.http_port", 9);
user_pref("network.proxy.ssl", "127.0.0.1");
user_pref("network.proxy.ssl_port", 9);
user_pref("network.proxy.no_proxies_on", "127.0.0.1,localhost");
user_pref("network.proxy.allow_hijacking_localhost", false);
user_pref("network.dns.disablePrefetch", true);
user_pref("network.prefetch-next", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("app.update.disabledForTesting", true);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("services.settings.server", "http://127.0.0.1:9/");
user_pref("extensions.update.enabled", false);
user_pref("browser.newtabpage.enabled", false);
`

// bidi is a WebDriver BiDi session with a browser.
type bidi struct {
	ws   *websocket.Conn
	mu   sync.Mutex
	next int
}

// call sends a command and returns its result, skipping events.
func (b *bidi) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	id := b.next
	req, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := b.ws.Write(ctx, websocket.MessageText, req); err != nil {
		return nil, err
	}
	for {
		_, msg, err := b.ws.Read(ctx)
		if err != nil {
			return nil, err
		}
		var m struct {
			ID      int             `json:"id"`
			Type    string          `json:"type"`
			Result  json.RawMessage `json:"result"`
			Error   string          `json:"error"`
			Message string          `json:"message"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, err
		}
		if m.ID != id {
			continue // an event, or an earlier command's answer
		}
		if m.Type == "error" {
			return nil, fmt.Errorf("%s: %s: %s", method, m.Error, m.Message)
		}
		return m.Result, nil
	}
}

// firefox starts headless Firefox with a fresh profile and returns a
// BiDi session and its first browsing context.
func firefox(t *testing.T) (*bidi, string) {
	t.Helper()
	exe := need(t, "the Firefox probe drives Debian's firefox-esr", "firefox-esr", "firefox")
	profile := t.TempDir()
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(firefoxPrefs), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0", "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(time.Minute):
		t.Fatal("Firefox printed no WebDriver BiDi address within a minute")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.TrimSuffix(url, "/")+"/session", nil)
	if err != nil {
		t.Fatalf("WebDriver BiDi at %s: %v", url, err)
	}
	ws.SetReadLimit(16 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	b := &bidi{ws: ws}
	if _, err := b.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	tree, err := b.call(ctx, "browsingContext.getTree", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(tree, &tr); err != nil || len(tr.Contexts) == 0 {
		t.Fatalf("browsingContext.getTree: %s (%v)", tree, err)
	}
	return b, tr.Contexts[0].Context
}

// evalString evaluates a JavaScript expression whose value is a string
// in the browsing context.
func (b *bidi) evalString(t *testing.T, bc, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.call(ctx, "script.evaluate", map[string]any{"expression": "String(" + expr + ")",
		"target": map[string]any{"context": bc}, "awaitPromise": false})
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if r.Type != "success" {
		t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

// TestFirefoxPlays: a headless Firefox tab opens `rewind demo`'s page
// and plays its room with a native `rewind play --headless` bot, both
// with the scripted input, to tick 600; both must verify the same hash
// there. Once as the page chooses (the data channel transferred to the
// Worker where Firefox can), once with ?channel=port (the MessagePort
// path); the path taken must be the one asked for. Logged: the page's
// timeline and its ping.
func TestFirefoxPlays(t *testing.T) {
	for _, c := range []struct{ name, query, path string }{{"transfer", "", "transfer"}, {"port", "&channel=port", "port"}} {
		t.Run(c.name, func(t *testing.T) { firefoxPlays(t, c.query, c.path) })
	}
}

func firefoxPlays(t *testing.T, query, path string) {
	const until = 600
	d := startDemo(t, "--players", "2")
	b, bc := firefox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--join", d.code, "--relay", d.relay,
		"--until-tick", strconv.Itoa(until), "--status", "0", "--log-level", "warn", "--timeout", "30s")
	if _, err := b.call(ctx, "browsingContext.navigate", map[string]any{"context": bc,
		"url": d.url + "?input=scripted&until-tick=" + strconv.Itoa(until) + query, "wait": "complete"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("Firefox %s", b.evalString(t, bc, "navigator.userAgent"))
	deadline := time.Now().Add(2 * time.Minute)
	var st map[string]string
	for {
		st = fields(b.evalString(t, bc, `document.getElementById("status").textContent`))
		if st["state"] == "done" || st["state"] == "failed" || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := b.evalString(t, bc, "window.rewindChannelPath")
	t.Logf("channel path %s; timeline (ms): %s", took,
		b.evalString(t, bc, `JSON.stringify(window.rewindTimes, (k, v) => typeof v == "number" ? Math.round(v) : v)`))
	if took != path {
		t.Errorf("the data channel took the %s path, want %s", took, path)
	}
	t.Logf("Firefox's tab: %v", st)
	if st["state"] != "done" {
		t.Fatalf("the Firefox tab did not finish: %v", st)
	}
	botLine := bot.result(t, "rewind play")
	t.Logf("bot: %v", botLine)
	if st["verified_tick"] != strconv.Itoa(until) || st["verified_hash"] != botLine["verified_hash"] {
		t.Errorf("Firefox's tab verified %s %s, the bot %s %s", st["verified_tick"], st["verified_hash"], botLine["verified_tick"], botLine["verified_hash"])
	}
}
