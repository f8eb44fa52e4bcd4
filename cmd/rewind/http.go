package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rewindnet/rewind/internal/cli/health"
	"github.com/rewindnet/rewind/internal/netutil"
)

// httpServer is the --http endpoint: /metrics, /debug/pprof/ and the
// probes /healthz and /readyz (docs/operations.md).
type httpServer struct {
	srv   *http.Server
	ln    net.Listener
	done  chan error
	probe health.Probe // /readyz: 503 once close begins
	mux   *http.ServeMux
	cf    *consoleFlags // serve's --console (nil: none)
}

// mountConsole adds serve's console of c's matches to the endpoint, if
// --console was given (it was checked with the flags), and prints its
// address on stdout (console=http://HOST:PORT/console).
func (h *httpServer) mountConsole(c *matchConsole, stdout io.Writer) {
	if h == nil || h.cf == nil || !h.cf.on {
		return
	}
	c.probe = &h.probe
	_ = h.cf.mount(h.mux, c, c) // the token was read by check
	fmt.Fprintf(stdout, "console=%s\n", consoleAt(h.ln.Addr()))
}

// startHTTP serves reg's /metrics and the pprof handlers on addr.
func startHTTP(addr string, reg *prometheus.Registry, log *slog.Logger) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	h := &httpServer{ln: ln, done: make(chan error, 1), mux: mux}
	h.probe.Mount(mux)
	h.srv = netutil.HTTPLimits{}.Server(mux)
	go func() {
		err := h.srv.Serve(netutil.HTTPLimits{}.Listener(ln))
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		h.done <- err
	}()
	log.Info("http", "addr", ln.Addr().String(), "metrics", "/metrics", "pprof", "/debug/pprof/")
	return h, nil
}

// Addr is the listening address.
func (h *httpServer) Addr() string { return h.ln.Addr().String() }

// close stops the server and waits for it; /readyz says draining
// meanwhile.
func (h *httpServer) close() {
	h.probe.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if h.srv.Shutdown(ctx) != nil {
		h.srv.Close()
	}
	<-h.done
}
