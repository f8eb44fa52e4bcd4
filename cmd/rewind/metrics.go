package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/rewindnet/rewind/internal/health"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/transport/udp"
)

// Metric names, all under the rewind_ namespace. The server exports the
// match metrics, the player the prediction ones (rollbacks, desyncs and
// resyncs happen in clients: the server never sees them).
const metricsNamespace = "rewind"

// newRegistry returns a registry with the Go runtime and process
// collectors (each command gets its own, so that tests can run several).
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// registerFuncs registers one CounterFunc or GaugeFunc per entry.
func registerFuncs(reg *prometheus.Registry, counters, gauges map[string]metricFunc) {
	for name, m := range counters {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: name, Help: m.help}, m.fn))
	}
	for name, m := range gauges {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: name, Help: m.help}, m.fn))
	}
}

type metricFunc struct {
	help string
	fn   func() float64
}

// registerHostMetrics exports a host's counters: players, matches,
// ticks, bytes, refusals, joins and the transport's drops; sock is the
// host's UDP socket (nil for a JSON gateway without --udp: its udp_
// counters stay 0 and its session gauges are not exported). h.Conn() is
// not asked: with --json it is the gateway's or a transport.Multi.
func registerHostMetrics[I any](reg *prometheus.Registry, h *rewind.Host[I], sock *udp.Server) {
	st := func(f func(s rewind.HostStats) uint64) func() float64 {
		return func() float64 { return float64(f(h.Stats())) }
	}
	registerUDPHostCounters(reg, h.Stats, sock)
	registerDropMetrics(reg, h.Stats, nil)
	registerFuncs(reg, nil, map[string]metricFunc{
		"players": {"Players in the current match.", st(func(s rewind.HostStats) uint64 { return uint64(s.Match.Players) })},
		"matches": {"Matches running (0 or 1).", st(func(s rewind.HostStats) uint64 { return b2u(s.Running) })},
		"tick":    {"The current match's last tick.", st(func(s rewind.HostStats) uint64 { return uint64(s.Match.Tick) })},
	})
}

// registerUDPHostCounters exports the counters a UDP host of one match and
// one of many (serve --rooms) share: matches, ticks, bytes, refusals,
// joins, the transport's drops, and the socket's sessions. stats must be
// safe to call from the HTTP server's goroutines.
func registerUDPHostCounters(reg *prometheus.Registry, stats func() rewind.HostStats, sock *udp.Server) {
	st := func(f func(s rewind.HostStats) uint64) func() float64 {
		return func() float64 { return float64(f(stats())) }
	}
	registerFuncs(reg, map[string]metricFunc{
		"matches_total":                 {"Matches started.", st(func(s rewind.HostStats) uint64 { return s.Matches })},
		"ticks_total":                   {"Ticks run, in all matches.", st(func(s rewind.HostStats) uint64 { return uint64(s.Total.Tick) })},
		"player_ticks_total":            {"Ticks times players present.", st(func(s rewind.HostStats) uint64 { return s.Total.PlayerTicks })},
		"late_inputs_total":             {"Player-ticks whose input had not arrived in time.", st(func(s rewind.HostStats) uint64 { return s.Total.LateInputs })},
		"joins_total":                   {"Players joined (join events).", st(func(s rewind.HostStats) uint64 { return s.Total.Joins })},
		"leaves_total":                  {"Players left (leave events: bye or timeout).", st(func(s rewind.HostStats) uint64 { return s.Total.Leaves })},
		"refusals_total":                {"Hellos refused by the match (full, incompatible, bad cookie).", st(func(s rewind.HostStats) uint64 { return s.Total.Refused })},
		"transport_refusals_total":      {"Handshakes refused by the UDP transport (too many sessions, protocol version).", st(func(s rewind.HostStats) uint64 { return s.UDP.Refused })},
		"bytes_in_total":                {"Datagram payload bytes the match received.", st(func(s rewind.HostStats) uint64 { return s.Total.BytesIn })},
		"bytes_out_total":               {"Datagram payload bytes the match sent.", st(func(s rewind.HostStats) uint64 { return s.Total.BytesOut })},
		"udp_bytes_in_total":            {"UDP bytes read from the socket, headers and invalid datagrams included.", st(func(s rewind.HostStats) uint64 { return s.UDP.BytesIn })},
		"udp_bytes_out_total":           {"UDP bytes written to the socket, headers and handshakes included.", st(func(s rewind.HostStats) uint64 { return s.UDP.BytesOut })},
		"udp_datagrams_in_total":        {"UDP datagrams read from the socket.", st(func(s rewind.HostStats) uint64 { return s.UDP.DatagramsIn })},
		"udp_datagrams_out_total":       {"UDP datagrams written to the socket.", st(func(s rewind.HostStats) uint64 { return s.UDP.DatagramsOut })},
		"malformed_datagrams_total":     {"Datagrams dropped as malformed: by the UDP framing or by the match.", st(func(s rewind.HostStats) uint64 { return s.UDP.Malformed + s.Total.BadDatagrams })},
		"unknown_conn_total":            {"Well-formed UDP frames for no session (or from the wrong address), dropped.", st(func(s rewind.HostStats) uint64 { return s.UDP.UnknownConn })},
		"bad_tokens_total":              {"Hellos with a forged, stale or misaddressed retry token.", st(func(s rewind.HostStats) uint64 { return s.UDP.BadToken })},
		"udp_bad_seal_total":            {"Sealed UDP frames of a session that did not open (forged, corrupted, another key), dropped.", st(func(s rewind.HostStats) uint64 { return s.UDP.BadSeal })},
		"udp_throttled_total":           {"Proven UDP hellos of new sessions dropped because their address opened too many (HandshakeRate).", st(func(s rewind.HostStats) uint64 { return s.UDP.Throttled })},
		"udp_replayed_total":            {"Sealed UDP frames whose counter was taken already or fell out of the replay window, dropped.", st(func(s rewind.HostStats) uint64 { return s.UDP.Replayed })},
		"sessions_idle_ended_total":     {"UDP sessions ended by the idle timeout.", st(func(s rewind.HostStats) uint64 { return s.UDP.EndedIdle })},
		"datagrams_queue_dropped_total": {"Datagrams dropped because the match fell behind reading them.", st(func(s rewind.HostStats) uint64 { return s.UDP.QueueDropped })},
		"udp_unproven_evicted_total":    {"Unproven UDP sessions (no match hello admitted yet) ended to make room: per-IP cap or a full server.", st(func(s rewind.HostStats) uint64 { return s.UDP.UnprovenEvicted })},
		"udp_unproven_reaped_total":     {"Unproven UDP sessions ended by the unproven timeout.", st(func(s rewind.HostStats) uint64 { return s.UDP.UnprovenReaped })},
	}, nil)
	if sock != nil {
		registerFuncs(reg, nil, map[string]metricFunc{
			"udp_sessions":          {"Open UDP sessions.", func() float64 { return float64(sock.Sessions()) }},
			"udp_unproven_sessions": {"Open UDP sessions not proven yet (no match hello admitted).", func() float64 { return float64(sock.Unproven()) }},
		})
	}
	// Refusals by reason: the log has one line per reason per second at
	// most, these count every one.
	for r := rewind.ReasonFull; r <= rewind.ReasonCookie; r++ {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "refusals_by_reason_total",
			Help:        "Hellos refused by the match, by reason.",
			ConstLabels: prometheus.Labels{"reason": r.String()},
		}, func() float64 { return float64(stats().RefusedBy[r]) }))
	}
}

// registerRelayMetrics exports a rooms relay's counters (relay.RoomStats):
// connections, rooms, joiners waiting for their data channel, and the
// joins dropped, failed and throttled (issue 15's limits).
func registerRelayMetrics(reg *prometheus.Registry, stats func() relay.RoomStats) {
	st := func(f func(s relay.RoomStats) uint64) func() float64 {
		return func() float64 { return float64(f(stats())) }
	}
	registerFuncs(reg, map[string]metricFunc{
		"relay_pending_dropped_total":  {"Joiners dropped before their data channel opened (join timeout, per-address and per-room caps).", st(func(s relay.RoomStats) uint64 { return s.PendingDropped })},
		"relay_joins_failed_total":     {"Joins that named no live room or a bad key.", st(func(s relay.RoomStats) uint64 { return s.JoinsFailed })},
		"relay_joins_throttled_total":  {"Joins refused because their address failed too often (rate_limited), here or, with --redis, anywhere in the fleet.", st(func(s relay.RoomStats) uint64 { return s.JoinsThrottled })},
		"relay_dead_relay_drops_total": {"With --redis: players stood in for another relay dropped, and connections forwarded to another relay closed, because that relay was found dead.", st(func(s relay.RoomStats) uint64 { return s.DeadRelayDrops })},
	}, map[string]metricFunc{
		"relay_standins":        {"With --redis: players of the fleet's other relays stood in for in this relay's rooms.", st(func(s relay.RoomStats) uint64 { return uint64(s.StandIns) })},
		"relay_conns":           {"Open WebSocket connections.", st(func(s relay.RoomStats) uint64 { return uint64(s.Conns) })},
		"relay_rooms":           {"Live rooms.", st(func(s relay.RoomStats) uint64 { return uint64(s.Rooms) })},
		"relay_pending_joiners": {"Joiners waiting for their data channel to open.", st(func(s relay.RoomStats) uint64 { return uint64(s.Pending) })},
	})
}

// registerMatchServerMetrics exports what a relay knows of its match
// servers (rooms protocol 2) and the rooms opened on demand.
func registerMatchServerMetrics(reg *prometheus.Registry, stats func() relay.MatchServerStats) {
	registerFuncs(reg, map[string]metricFunc{
		"relay_opens_total":           {"Rooms opened on demand on a match server.", func() float64 { return float64(stats().Opened) }},
		"relay_opens_full_total":      {"Requests for a room on demand refused full: no match server had a free slot, or the one asked refused or did not answer.", func() float64 { return float64(stats().Full) }},
		"relay_opens_forwarded_total": {"With --redis: requests for a room on demand placed at another relay of the fleet (no match server here had a free slot).", func() float64 { return float64(stats().Forwarded) }},
	}, map[string]metricFunc{
		"relay_match_servers":           {"Match servers connected (one connection each, many rooms).", func() float64 { return float64(stats().Servers) }},
		"relay_match_server_slots":      {"Slots of the match servers that open rooms on demand.", func() float64 { return float64(stats().Slots) }},
		"relay_match_server_slots_used": {"Of those slots, the ones holding a room.", func() float64 { return float64(stats().Used) }},
	})
}

// registerPlayerMetrics exports a player's counters: its ticks, ping,
// rollbacks, desyncs, resyncs and bytes. stats must be safe to call from
// the HTTP server's goroutines.
func registerPlayerMetrics(reg *prometheus.Registry, stats func() rewind.Stats) {
	st := func(f func(s rewind.Stats) uint64) func() float64 {
		return func() float64 { return float64(f(stats())) }
	}
	registerFuncs(reg, map[string]metricFunc{
		"rollbacks_total":           {"Rollbacks (a guessed input was wrong).", st(func(s rewind.Stats) uint64 { return s.Rollbacks })},
		"rolled_back_ticks_total":   {"Ticks simulated again in rollbacks.", st(func(s rewind.Stats) uint64 { return s.RolledBackTicks })},
		"desyncs_total":             {"Verified ticks whose hash differed from the server's after resimulation.", st(func(s rewind.Stats) uint64 { return s.Desyncs })},
		"resyncs_total":             {"Repairs of a desynced world.", st(func(s rewind.Stats) uint64 { return s.Resyncs })},
		"late_inputs_total":         {"Ticks in which the server lacked this player's input.", st(func(s rewind.Stats) uint64 { return s.LateInputs })},
		"stalls_total":              {"Updates in which prediction waited at its limit.", st(func(s rewind.Stats) uint64 { return s.Stalls })},
		"bytes_in_total":            {"Datagram payload bytes received.", st(func(s rewind.Stats) uint64 { return s.BytesIn })},
		"bytes_out_total":           {"Datagram payload bytes sent.", st(func(s rewind.Stats) uint64 { return s.BytesOut })},
		"malformed_datagrams_total": {"Datagrams dropped as malformed or stray.", st(func(s rewind.Stats) uint64 { return s.BadDatagrams })},
	}, map[string]metricFunc{
		"verified_tick":      {"The last verified tick.", st(func(s rewind.Stats) uint64 { return uint64(s.Verified) })},
		"predicted_tick":     {"The tick the predicted world is at.", st(func(s rewind.Stats) uint64 { return uint64(s.Predicted) })},
		"max_rollback_ticks": {"The deepest rollback, in ticks.", st(func(s rewind.Stats) uint64 { return uint64(s.MaxRollback) })},
		"ping_seconds":       {"The measured round trip.", func() float64 { return stats().Ping.Seconds() }},
	})
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

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
// --console was given (it was checked with the flags).
func (h *httpServer) mountConsole(c *matchConsole) {
	if h == nil || h.cf == nil || !h.cf.on {
		return
	}
	c.probe = &h.probe
	_ = h.cf.mount(h.mux, c, c) // the token was read by check
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
