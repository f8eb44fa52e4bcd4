package webdoom

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func wdWriteTree(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"client/index.html":  "<html>webdoom</html>",
		"client/lobby.js":    "// lobby",
		"build/doom.wasm":    "\x00asm",
		"wads/lib/free.wad":  "IWAD....",
		"wads/manifest.json": `{"generated":"x","wads":[{"file":"free.wad"}]}`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret"), 0o644)
	return dir
}

func wdDo(t *testing.T, h http.Handler, method, target string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, bytes.NewReader(body)))
	return rec
}

func TestHTTPFiles(t *testing.T) {
	cfg := DefaultServerConfig()
	cfg.Dir = wdWriteTree(t)
	s := NewServer(cfg)
	defer s.Close()
	cases := []struct {
		path, body, ctype, cache string
		code                     int
	}{
		{"/", "<html>webdoom</html>", "text/html; charset=utf-8", "no-store", 200},
		{"/lobby.js", "// lobby", "text/javascript; charset=utf-8", "no-store", 200},
		{"/engine/doom.wasm", "\x00asm", "application/wasm", "no-store", 200},
		{"/wads/free.wad", "IWAD....", "application/octet-stream", "public, max-age=31536000, immutable", 200},
		{"/api/wads", `{"generated":"x","wads":[{"file":"free.wad"}]}`, "application/json", "no-store", 200},
		{"/wads/../secret.txt", "bad path", "", "", 400},
		{"/a..b", "bad path", "", "", 400},
		{"/%2e%2e/secret.txt", "bad path", "", "", 400},
		{"/nope.html", "not found", "", "", 404},
		{"/engine/", "not found", "", "", 404},
	}
	for _, c := range cases {
		rec := wdDo(t, s, "GET", c.path, nil)
		if rec.Code != c.code || rec.Body.String() != c.body {
			t.Errorf("%s: %d %q, want %d %q", c.path, rec.Code, rec.Body, c.code, c.body)
		}
		if c.ctype != "" && rec.Header().Get("Content-Type") != c.ctype {
			t.Errorf("%s: content-type %q", c.path, rec.Header().Get("Content-Type"))
		}
		if c.cache != "" && rec.Header().Get("Cache-Control") != c.cache {
			t.Errorf("%s: cache-control %q", c.path, rec.Header().Get("Cache-Control"))
		}
	}
	// Metrics are never on the game port (cmd/rewind serves them on a
	// listener of its own: TestWebDoomMetrics there).
	if rec := wdDo(t, s, "GET", "/metrics", nil); rec.Code != 404 {
		t.Errorf("metrics on the game port: %d %.200s", rec.Code, rec.Body)
	}
	// Without a tree only the relay runs: app routes 404.
	bare := NewServer(DefaultServerConfig())
	defer bare.Close()
	for _, p := range []string{"/", "/api/wads", "/wads/free.wad"} {
		if rec := wdDo(t, bare, "GET", p, nil); rec.Code != 404 {
			t.Errorf("no dir, %s: %d", p, rec.Code)
		}
	}
}

func TestDemoStore(t *testing.T) {
	now := time.Unix(5000, 0)
	cfg := DefaultServerConfig()
	cfg.DemoMax, cfg.DemoTotal = 100, 250
	cfg.Now = func() time.Time { return now }
	s := NewServer(cfg)
	defer s.Close()
	demo := bytes.Repeat([]byte{1}, 100)
	sum := sha256.Sum256(demo)
	id := hex.EncodeToString(sum[:])
	rec := wdDo(t, s, "POST", "/api/demos?wad=doom2.wad", demo)
	if rec.Code != 201 || rec.Body.String() != fmt.Sprintf(`{"id":"%s","size":100}`, id) {
		t.Fatalf("post: %d %s", rec.Code, rec.Body)
	}
	if rec := wdDo(t, s, "POST", "/api/demos", make([]byte, 101)); rec.Code != 413 {
		t.Fatalf("oversize: %d", rec.Code)
	}
	rec = wdDo(t, s, "GET", "/api/demos/"+id, nil)
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), demo) || rec.Header().Get("x-demo-wad") != "doom2.wad" {
		t.Fatalf("get: %d %v", rec.Code, rec.Header())
	}
	for _, p := range []string{"/api/demos/xyz", "/api/demos/" + strings.ToUpper(id), "/api/demos/" + id + "x", "/api/demos/abc/verify"} {
		if rec := wdDo(t, s, "GET", p, nil); rec.Code != 400 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	if rec := wdDo(t, s, "GET", "/api/demos/"+strings.Repeat("0", 64), nil); rec.Code != 404 {
		t.Errorf("unknown: %d", rec.Code)
	}
	// Verify traces.
	v := "/api/demos/" + id + "/verify"
	if rec := wdDo(t, s, "GET", v, nil); rec.Code != 404 {
		t.Errorf("no trace yet: %d", rec.Code)
	}
	for body, code := range map[string]int{
		`{"tics":3,"trace":[1,2,4294967295]}`: 200,
		`{"tics":3,"trace":[1,-2]}`:           400,
		`{"tics":3,"trace":[4294967296]}`:     400,
		`{"tics":3,"trace":[1.5]}`:            400,
		`{"tics":"3","trace":[]}`:             400,
		`not json`:                            400,
		`null`:                                400,
	} {
		if rec := wdDo(t, s, "POST", v, []byte(body)); rec.Code != code {
			t.Errorf("verify %s: %d, want %d (%s)", body, rec.Code, code, rec.Body)
		}
	}
	if rec := wdDo(t, s, "POST", "/api/demos/"+strings.Repeat("0", 64)+"/verify", []byte(`{"tics":1,"trace":[]}`)); rec.Code != 404 {
		t.Errorf("verify unknown demo: %d", rec.Code)
	}
	if rec := wdDo(t, s, "POST", v, bytes.Repeat([]byte(" "), webDoomVerifyMax+1)); rec.Code != 413 {
		t.Errorf("verify too big: %d", rec.Code)
	}
	rec = wdDo(t, s, "GET", v, nil)
	if rec.Code != 200 || rec.Body.String() != `{"tics":3,"trace":[1,2,4294967295],"storedAt":5000000}` {
		t.Errorf("get trace: %d %s", rec.Code, rec.Body)
	}
	// 429 while another verify is in flight.
	s.demos.verifying.Store(true)
	if rec := wdDo(t, s, "POST", v, []byte(`{"tics":1,"trace":[]}`)); rec.Code != 429 {
		t.Errorf("concurrent verify: %d", rec.Code)
	}
	s.demos.verifying.Store(false)
	// Quota: oldest evicted first; lifetime 24 h.
	other := bytes.Repeat([]byte{2}, 100)
	third := bytes.Repeat([]byte{3}, 100)
	now = now.Add(time.Second)
	wdDo(t, s, "POST", "/api/demos", other)
	now = now.Add(time.Second)
	wdDo(t, s, "POST", "/api/demos", third) // 300 > 250: the first goes
	if rec := wdDo(t, s, "GET", "/api/demos/"+id, nil); rec.Code != 404 {
		t.Errorf("oldest not evicted: %d", rec.Code)
	}
	now = now.Add(24 * time.Hour)
	sum = sha256.Sum256(third)
	if rec := wdDo(t, s, "GET", "/api/demos/"+hex.EncodeToString(sum[:]), nil); rec.Code != 404 {
		t.Errorf("expired demo served: %d", rec.Code)
	}
	if _, status := s.demos.put(make([]byte, 100), "", now); status != 0 {
		t.Errorf("put after expiry: %d", status)
	}
	io.Discard.Write(nil)
}

func FuzzAttestation(f *testing.F) {
	for _, s := range []string{`{"tics":3,"trace":[1,2,3]}`, `{"tics":1e3,"trace":[]}`, `[]`, `{"trace":[1.0,2e2]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, trace, status, _ := parseAttestation(b)
		if status == 200 && len(trace) > webDoomVerifyEntries {
			t.Fatalf("%d entries accepted", len(trace))
		}
		if status != 200 && trace != nil {
			t.Fatal("trace on failure")
		}
	})
}

func FuzzSlotQuery(f *testing.F) {
	for _, s := range []string{"slot=2", "slot=%33", "x=1&slot=+1+", "slot=0x3", "slot", "", "slot=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if slot, ok := parseSlot(q); ok && (slot < 0 || slot > 3) {
			t.Fatalf("%q: slot %d", q, slot)
		}
	})
}
