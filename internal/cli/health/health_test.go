package health

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestProbe: /healthz is 200 always, /readyz 200 until Drain, then 503.
func TestProbe(t *testing.T) {
	var p Probe
	mux := http.NewServeMux()
	p.Mount(mux)
	get := func(path string) int {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	if get(LivePath) != 200 || get(ReadyPath) != 200 {
		t.Fatalf("before the drain: healthz %d readyz %d", get(LivePath), get(ReadyPath))
	}
	p.Drain()
	if get(LivePath) != 200 || get(ReadyPath) != 503 {
		t.Fatalf("draining: healthz %d readyz %d, want 200 and 503", get(LivePath), get(ReadyPath))
	}
}
