//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// The page of the browser test: it fetches what WebDoom's page fetches
// (the UI assets, the WAD library, a WAD) and more (a range of the WAD,
// the engine's wasm compiled while streaming, which needs its MIME type),
// loads a gzip-compressed script, and leaves a report in window.report.
// Scripts are files: the served content security policy forbids inline
// ones, as WebDoom's does.
const browserTestPage = `<!doctype html><html><head><meta charset="utf-8"><title>rewind webdoom fixture</title>
<script src="/js/app.js"></script><script src="/js/report.js"></script></head><body>fixture</body></html>`

const browserTestReport = `window.report = (async () => {
  const r = {app: window.appLoaded || null};
  const ui = await fetch('/api/ui-assets');
  r.uiStatus = ui.status; r.uiType = ui.headers.get('content-type'); r.uiCache = ui.headers.get('cache-control');
  const doc = await ui.json();
  r.lumps = Object.keys(doc.lumps); r.titles = Object.keys(doc.titles);
  r.playpal = doc.lumps.PLAYPAL; r.titlePic = doc.titles['doom.wad'] && doc.titles['doom.wad'].pic;
  const wads = await fetch('/api/wads');
  r.wads = (await wads.json()).wads.map(w => w.file);
  const wad = await fetch('/wads/doom.wad?v=abc');
  r.wadStatus = wad.status; r.wadCache = wad.headers.get('cache-control'); r.wadETag = wad.headers.get('etag');
  r.wadBytes = (await wad.arrayBuffer()).byteLength;
  const part = await fetch('/wads/doom.wad', {headers: {Range: 'bytes=0-3'}});
  r.rangeStatus = part.status; r.rangeText = await part.text();
  const wasm = await WebAssembly.instantiateStreaming(fetch('/engine/doom.wasm'));
  r.wasmAnswer = wasm.instance.exports.answer();
  r.missing = (await fetch('/nope.html')).status;
  r.badPath = (await fetch('/a..b')).status;
  return JSON.stringify(r);
})();
`

// A wasm module exporting answer() = 42.
var browserTestWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type: () -> i32
	0x03, 0x02, 0x01, 0x00, // func 0 of type 0
	0x07, 0x0a, 0x01, 0x06, 'a', 'n', 's', 'w', 'e', 'r', 0x00, 0x00, // export "answer"
	0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a, 0x0b, // body: i32.const 42
}

// testWAD builds a WAD of the named lumps, in order.
func testWAD(magic string, lumps ...[2]string) []byte {
	b := append([]byte(magic), make([]byte, 8)...)
	var dir []byte
	for _, l := range lumps {
		e := binary.LittleEndian.AppendUint32(nil, uint32(len(b)))
		e = binary.LittleEndian.AppendUint32(e, uint32(len(l[1])))
		name := make([]byte, 8)
		copy(name, l[0])
		dir = append(append(dir, e...), name...)
		b = append(b, l[1]...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(lumps)))
	binary.LittleEndian.PutUint32(b[8:], uint32(len(b)))
	return append(b, dir...)
}

// TestWebDoomBrowser: Debian's Chromium loads the page at / served by
// `rewind webdoom --dir` on a fixture tree, and what the page got over
// HTTP is checked end to end (through the browser's own fetch, gzip
// decoding, range and streaming wasm compilation).
func TestWebDoomBrowser(t *testing.T) {
	testutil.SkipSockets(t)
	exe := needTool(t, "the WebDoom browser test drives Debian's Chromium", "chromium", "chromium-browser")
	checkLeaks(t)
	dir := t.TempDir()
	app := "window.appLoaded = 'yes';\n" + strings.Repeat("// padding that compresses\n", 200)
	wad := testWAD("IWAD", [2]string{"PLAYPAL", strings.Repeat("\x01\x02\x03", 256)}, [2]string{"TITLEPIC", "picture"},
		[2]string{"M_DOOM", "logo"}, [2]string{"STCFN065", "A"})
	for name, body := range map[string][]byte{
		"client/index.html":   []byte(browserTestPage),
		"client/js/app.js":    []byte(app),
		"client/js/report.js": []byte(browserTestReport),
		"build/doom.wasm":     browserTestWasm,
		"wads/lib/doom.wad":   wad,
		"wads/manifest.json":  []byte(`{"generated":"test","wads":[{"file":"doom.wad","title":"Fixture"}]}`),
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base, stop := startWebDoomCmd(ctx, t, "--host", "127.0.0.1", "--port", "0", "--dir", dir, "--quiet")
	defer stop()

	page := openChromium(ctx, t, exe, base+"/")
	var got map[string]any
	for {
		v, err := page.eval(ctx, "window.report")
		if err == nil {
			if s, ok := v.(string); ok {
				if err := json.Unmarshal([]byte(s), &got); err != nil {
					t.Fatalf("report %q: %v", s, err)
				}
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no report from the page: %v (last: %v)", ctx.Err(), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	want := map[string]any{
		"app": "yes", "uiStatus": 200.0, "uiType": "application/json", "uiCache": "no-store",
		"lumps": []any{"PLAYPAL", "M_DOOM", "STCFN065"}, "titles": []any{"doom.wad"},
		"playpal": "AQIDAQID", "titlePic": "cGljdHVyZQ==",
		"wads": []any{"doom.wad"}, "wadStatus": 200.0, "wadCache": "public, max-age=31536000, immutable",
		"wadBytes": float64(len(wad)), "rangeStatus": 206.0, "rangeText": "IWAD", "wasmAnswer": 42.0,
		"missing": 404.0, "badPath": 400.0,
	}
	for k, w := range want {
		g := got[k]
		if k == "playpal" {
			if s, ok := g.(string); ok && strings.HasPrefix(s, w.(string)) {
				continue
			}
		}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("page saw %s = %v, want %v", k, g, w)
		}
	}
	if etag, _ := got["wadETag"].(string); !strings.HasPrefix(etag, `"`) {
		t.Errorf("page saw the WAD's ETag %q", got["wadETag"])
	}
	page.close()
}

// needTool returns the path of the first of names on PATH, or skips the
// test (fails it under CI, where .ci/run installs the tool).
func needTool(t *testing.T, why string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("%s: none of %v on PATH (.ci/run installs it)", why, names)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// startWebDoomCmd runs `rewind webdoom` in-process with args and returns
// its http://host:port base and a stop that waits for it to end.
func startWebDoomCmd(ctx context.Context, t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveWebDoom(ctx, args, func(string) string { return "" }, outW, io.Discard)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	if !sc.Scan() {
		cancel()
		t.Fatalf("rewind webdoom printed nothing: %v", <-done)
	}
	m := regexp.MustCompile(`listening on (http://\S+)/ `).FindStringSubmatch(sc.Text())
	if m == nil {
		cancel()
		t.Fatalf("listening line %q", sc.Text())
	}
	go io.Copy(io.Discard, outR)
	return m[1], func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("rewind webdoom: %v", err)
		}
	}
}

// cdpPage is one Chromium tab driven over the DevTools protocol.
type cdpPage struct {
	cmd  *exec.Cmd
	ws   *websocket.Conn
	next int
}

// openChromium starts headless Chromium with a profile of its own, opens
// url in a new tab and connects to the tab's DevTools socket.
func openChromium(ctx context.Context, t *testing.T, exe, url string) *cdpPage {
	t.Helper()
	profile := t.TempDir()
	cmd := exec.Command(exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--no-default-browser-check", "--disable-extensions", "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--user-data-dir="+profile, "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // close ends its helpers too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &cdpPage{cmd: cmd}
	t.Cleanup(p.close)
	// Chromium writes its DevTools port to DevToolsActivePort once it listens.
	var port string
	for port == "" {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			port, _, _ = strings.Cut(string(b), "\n")
		}
		if ctx.Err() != nil {
			t.Fatalf("chromium wrote no DevToolsActivePort: %v", ctx.Err())
		}
		time.Sleep(50 * time.Millisecond)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, "http://127.0.0.1:"+port+"/json/new?"+url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("chromium /json/new: %v", err)
	}
	var target struct{ WebSocketDebuggerURL string }
	err = json.NewDecoder(resp.Body).Decode(&target)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if err != nil || target.WebSocketDebuggerURL == "" {
		t.Fatalf("chromium /json/new: %+v %v", target, err)
	}
	ws, _, err := websocket.Dial(ctx, target.WebSocketDebuggerURL, nil)
	if err != nil {
		t.Fatalf("chromium tab socket: %v", err)
	}
	ws.SetReadLimit(16 << 20)
	p.ws = ws
	return p
}

// eval evaluates expr in the tab, awaiting a promise, and returns its value.
func (p *cdpPage) eval(ctx context.Context, expr string) (any, error) {
	p.next++
	id := p.next
	msg, _ := json.Marshal(map[string]any{"id": id, "method": "Runtime.evaluate",
		"params": map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}})
	if err := p.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, err
	}
	for {
		_, b, err := p.ws.Read(ctx)
		if err != nil {
			return nil, err
		}
		var r struct {
			ID     int
			Error  *struct{ Message string }
			Result struct {
				Result           struct{ Value any }
				ExceptionDetails *struct {
					Text      string
					Exception struct{ Description string }
				}
			}
		}
		if json.Unmarshal(b, &r) != nil || r.ID != id {
			continue // an event, or another answer
		}
		if r.Error != nil {
			return nil, fmt.Errorf("devtools: %s", r.Error.Message)
		}
		if e := r.Result.ExceptionDetails; e != nil {
			return nil, fmt.Errorf("page: %s %s", e.Text, e.Exception.Description)
		}
		return r.Result.Result.Value, nil
	}
}

// close ends the tab's socket and Chromium with its helper processes
// (idempotent).
func (p *cdpPage) close() {
	if p.ws != nil {
		p.ws.CloseNow()
		p.ws = nil
	}
	if p.cmd != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.cmd.Wait()
		p.cmd = nil
	}
}
