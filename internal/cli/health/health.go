// Package health serves the probes an orchestrator asks a process:
// /healthz (alive: 200 while the process serves HTTP) and /readyz (ready:
// 200 while it accepts new players or rooms, 503 once it drains). Relay,
// serve and demo mount them on their HTTP address (docs/operations.md).
package health

import (
	"net/http"
	"sync/atomic"
)

// Paths of the probes.
const (
	LivePath  = "/healthz"
	ReadyPath = "/readyz"
)

// Probe is a process's readiness: ready until Drain. The zero value is
// ready; it is safe for concurrent use.
type Probe struct {
	draining atomic.Bool
}

// Drain marks the process as taking no new players or rooms: /readyz
// answers 503 from now on (an orchestrator stops sending it traffic while
// what runs ends).
func (p *Probe) Drain() { p.draining.Store(true) }

// Draining reports whether Drain was called.
func (p *Probe) Draining() bool { return p.draining.Load() }

// Mount adds /healthz and /readyz to mux.
func (p *Probe) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+LivePath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET "+ReadyPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if p.Draining() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("draining\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}
