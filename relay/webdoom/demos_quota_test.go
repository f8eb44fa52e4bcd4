package webdoom

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDemoStoreTracesCounted: verify traces count against the store's
// total (4 bytes an entry) and leave with their demo; a trace larger than
// the whole store is refused (507).
func TestDemoStoreTracesCounted(t *testing.T) {
	now := time.Unix(5000, 0)
	cfg := DefaultServerConfig()
	cfg.DemoMax, cfg.DemoTotal = 100, 1000
	cfg.Now = func() time.Time { return now }
	s := NewServer(cfg)
	defer s.Close()
	trace := func(n int) []byte {
		return []byte(`{"tics":1,"trace":[` + strings.TrimSuffix(strings.Repeat("7,", n), ",") + `]}`)
	}
	var ids []string
	for i := range 10 {
		now = now.Add(time.Second)
		demo := []byte{byte(i), 1, 2} // three bytes, as the attack's
		sum := sha256.Sum256(demo)
		id := hex.EncodeToString(sum[:])
		if rec := wdDo(t, s, "POST", "/api/demos", demo); rec.Code != 201 {
			t.Fatalf("post %d: %d %s", i, rec.Code, rec.Body)
		}
		if rec := wdDo(t, s, "POST", "/api/demos/"+id+"/verify", trace(100)); rec.Code != 200 {
			t.Fatalf("verify %d: %d %s", i, rec.Code, rec.Body)
		}
		ids = append(ids, id)
		s.demos.mu.Lock()
		used, n := s.demos.used, len(s.demos.demos)
		entries := 0
		for _, x := range s.demos.demos {
			if x.attest != nil {
				entries += len(x.attest.trace)
			}
		}
		s.demos.mu.Unlock()
		if used > cfg.DemoTotal || used != 3*n+4*entries {
			t.Fatalf("after %d: %d bytes counted for %d demos with %d trace entries (total %d)", i+1, used, n, entries, cfg.DemoTotal)
		}
	}
	// 403 bytes a demo: two fit in 1000; the oldest went, traces and all.
	if rec := wdDo(t, s, "GET", "/api/demos/"+ids[0]+"/verify", nil); rec.Code != 404 {
		t.Errorf("oldest demo's trace still served: %d", rec.Code)
	}
	if rec := wdDo(t, s, "GET", "/api/demos/"+ids[9]+"/verify", nil); rec.Code != 200 {
		t.Errorf("newest trace: %d", rec.Code)
	}
	if rec := wdDo(t, s, "POST", "/api/demos/"+ids[9]+"/verify", trace(300)); rec.Code != 507 {
		t.Errorf("a trace over the whole store: %d, want 507", rec.Code)
	}
}

// TestDemoUploadRate: one address's uploads are a token bucket.
func TestDemoUploadRate(t *testing.T) {
	now := time.Unix(5000, 0)
	cfg := DefaultServerConfig()
	cfg.DemoUploadRate, cfg.DemoUploadBurst = 1, 5
	cfg.Now = func() time.Time { return now }
	s := NewServer(cfg)
	defer s.Close()
	for i := range 5 {
		if rec := wdDo(t, s, "POST", "/api/demos", []byte{byte(i)}); rec.Code != 201 {
			t.Fatalf("upload %d: %d", i, rec.Code)
		}
	}
	if rec := wdDo(t, s, "POST", "/api/demos/"+strings.Repeat("0", 64)+"/verify", nil); rec.Code != 429 {
		t.Fatalf("6th upload (a verify): %d, want 429", rec.Code)
	}
	if rec := wdDo(t, s, "GET", "/api/demos/"+strings.Repeat("0", 64), nil); rec.Code != 404 {
		t.Fatalf("a download is not an upload: %d", rec.Code)
	}
	now = now.Add(time.Second)
	if rec := wdDo(t, s, "POST", "/api/demos", []byte(fmt.Sprint(99))); rec.Code != 201 {
		t.Fatalf("a second later: %d", rec.Code)
	}
}
