// Package metrics holds the Prometheus metrics the rewind command exports
// on its --http endpoint: the registries, the host's, relay's, match
// servers', player's and WebDoom's counters, and the UDP drops by reason
// (docs/operations.md lists them; docs/grafana's dashboard reads them).
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/transport/udp"
)

// Metric names, all under the rewind_ namespace. The server exports the
// match metrics, the player the prediction ones (rollbacks, desyncs and
// resyncs happen in clients: the server never sees them).
const Namespace = "rewind"

// NewRegistry returns a registry with the Go runtime and process
// collectors (each command gets its own, so that tests can run several).
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Register registers one CounterFunc or GaugeFunc per entry.
func Register(reg *prometheus.Registry, counters, gauges map[string]Func) {
	for name, m := range counters {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: Namespace, Name: name, Help: m.Help}, m.Fn))
	}
	for name, m := range gauges {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Name: name, Help: m.Help}, m.Fn))
	}
}

// Func is one metric: its help and the function that reads it.
type Func struct {
	Help string
	Fn   func() float64
}

// RegisterHost exports a host's counters: players, matches,
// ticks, bytes, refusals, joins and the transport's drops; sock is the
// host's UDP socket (nil for a JSON gateway without --udp: its udp_
// counters stay 0 and its session gauges are not exported). h.Conn() is
// not asked: with --json it is the gateway's or a transport.Multi.
func RegisterHost[I any](reg *prometheus.Registry, h *rewind.Host[I], sock *udp.Server) {
	st := func(f func(s rewind.HostStats) uint64) func() float64 {
		return func() float64 { return float64(f(h.Stats())) }
	}
	RegisterUDPHost(reg, h.Stats, sock)
	RegisterDrops(reg, h.Stats, nil)
	Register(reg, nil, map[string]Func{
		"players": {Help: "Players in the current match.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Match.Players) })},
		"matches": {Help: "Matches running (0 or 1).", Fn: st(func(s rewind.HostStats) uint64 { return Bool(s.Running) })},
		"tick":    {Help: "The current match's last tick.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Match.Tick) })},
	})
}

// RegisterUDPHost exports the counters a UDP host of one match and
// one of many (serve --rooms) share: matches, ticks, bytes, refusals,
// joins, the transport's drops, and the socket's sessions. stats must be
// safe to call from the HTTP server's goroutines.
func RegisterUDPHost(reg *prometheus.Registry, stats func() rewind.HostStats, sock *udp.Server) {
	st := func(f func(s rewind.HostStats) uint64) func() float64 {
		return func() float64 { return float64(f(stats())) }
	}
	Register(reg, map[string]Func{
		"matches_total":                 {Help: "Matches started.", Fn: st(func(s rewind.HostStats) uint64 { return s.Matches })},
		"ticks_total":                   {Help: "Ticks run, in all matches.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Total.Tick) })},
		"player_ticks_total":            {Help: "Ticks times players present.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.PlayerTicks })},
		"late_inputs_total":             {Help: "Player-ticks whose input had not arrived in time.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.LateInputs })},
		"joins_total":                   {Help: "Players joined (join events).", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.Joins })},
		"leaves_total":                  {Help: "Players left (leave events: bye or timeout).", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.Leaves })},
		"refusals_total":                {Help: "Hellos refused by the match (full, incompatible, bad cookie).", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.Refused })},
		"transport_refusals_total":      {Help: "Handshakes refused by the UDP transport (too many sessions, protocol version).", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.Refused })},
		"bytes_in_total":                {Help: "Datagram payload bytes the match received.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.BytesIn })},
		"bytes_out_total":               {Help: "Datagram payload bytes the match sent.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.BytesOut })},
		"udp_bytes_in_total":            {Help: "UDP bytes read from the socket, headers and invalid datagrams included.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.BytesIn })},
		"udp_bytes_out_total":           {Help: "UDP bytes written to the socket, headers and handshakes included.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.BytesOut })},
		"udp_datagrams_in_total":        {Help: "UDP datagrams read from the socket.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.DatagramsIn })},
		"udp_datagrams_out_total":       {Help: "UDP datagrams written to the socket.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.DatagramsOut })},
		"malformed_datagrams_total":     {Help: "Datagrams dropped as malformed: by the UDP framing or by the match.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.Malformed + s.Total.BadDatagrams })},
		"unknown_conn_total":            {Help: "Well-formed UDP frames for no session (or from the wrong address), dropped.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.UnknownConn })},
		"bad_tokens_total":              {Help: "Hellos with a forged, stale or misaddressed retry token.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.BadToken })},
		"udp_bad_seal_total":            {Help: "Sealed UDP frames of a session that did not open (forged, corrupted, another key), dropped.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.BadSeal })},
		"udp_throttled_total":           {Help: "Proven UDP hellos of new sessions dropped because their address opened too many (HandshakeRate).", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.Throttled })},
		"udp_replayed_total":            {Help: "Sealed UDP frames whose counter was taken already or fell out of the replay window, dropped.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.Replayed })},
		"sessions_idle_ended_total":     {Help: "UDP sessions ended by the idle timeout.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.EndedIdle })},
		"datagrams_queue_dropped_total": {Help: "Datagrams dropped because the match fell behind reading them.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.QueueDropped })},
		"udp_unproven_evicted_total":    {Help: "Unproven UDP sessions (no match hello admitted yet) ended to make room: per-IP cap or a full server.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.UnprovenEvicted })},
		"udp_unproven_reaped_total":     {Help: "Unproven UDP sessions ended by the unproven timeout.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.UnprovenReaped })},
	}, nil)
	if sock != nil {
		Register(reg, nil, map[string]Func{
			"udp_sessions":          {Help: "Open UDP sessions.", Fn: func() float64 { return float64(sock.Sessions()) }},
			"udp_unproven_sessions": {Help: "Open UDP sessions not proven yet (no match hello admitted).", Fn: func() float64 { return float64(sock.Unproven()) }},
		})
	}
	// Refusals by reason: the log has one line per reason per second at
	// most, these count every one.
	for r := rewind.ReasonFull; r <= rewind.ReasonCookie; r++ {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: Namespace, Name: "refusals_by_reason_total",
			Help:        "Hellos refused by the match, by reason.",
			ConstLabels: prometheus.Labels{"reason": r.String()},
		}, func() float64 { return float64(stats().RefusedBy[r]) }))
	}
}

// RegisterRelay exports a rooms relay's counters (relay.RoomStats):
// connections, rooms, joiners waiting for their data channel, and the
// joins dropped, failed and throttled (issue 15's limits), and the
// lookups that found a room.
func RegisterRelay(reg *prometheus.Registry, stats func() relay.RoomStats) {
	st := func(f func(s relay.RoomStats) uint64) func() float64 {
		return func() float64 { return float64(f(stats())) }
	}
	Register(reg, map[string]Func{
		"relay_pending_dropped_total":  {Help: "Joiners dropped before their data channel opened (join timeout, per-address and per-room caps).", Fn: st(func(s relay.RoomStats) uint64 { return s.PendingDropped })},
		"relay_joins_failed_total":     {Help: "Joins that named no live room or a bad key, and lookups that found no room (they count as failed joins).", Fn: st(func(s relay.RoomStats) uint64 { return s.JoinsFailed })},
		"relay_lookups_found_total":    {Help: "Lookups of a room code (the page's join-by-code field) answered found.", Fn: st(func(s relay.RoomStats) uint64 { return s.LookupsFound })},
		"relay_joins_throttled_total":  {Help: "Joins and lookups refused because their address failed too often (rate_limited), here or, with --redis, anywhere in the fleet.", Fn: st(func(s relay.RoomStats) uint64 { return s.JoinsThrottled })},
		"relay_dead_relay_drops_total": {Help: "With --redis: players stood in for another relay dropped, and connections forwarded to another relay closed, because that relay was found dead.", Fn: st(func(s relay.RoomStats) uint64 { return s.DeadRelayDrops })},
		"relay_stalls_total":           {Help: "The relay's own stalls (its timer late beyond max(tick, ping interval): GC, CPU starvation), not counted against its hosts.", Fn: st(func(s relay.RoomStats) uint64 { return s.Stalls })},
	}, map[string]Func{
		"relay_standins":        {Help: "With --redis: players of the fleet's other relays stood in for in this relay's rooms.", Fn: st(func(s relay.RoomStats) uint64 { return uint64(s.StandIns) })},
		"relay_conns":           {Help: "Open WebSocket connections.", Fn: st(func(s relay.RoomStats) uint64 { return uint64(s.Conns) })},
		"relay_rooms":           {Help: "Live rooms.", Fn: st(func(s relay.RoomStats) uint64 { return uint64(s.Rooms) })},
		"relay_pending_joiners": {Help: "Joiners waiting for their data channel to open.", Fn: st(func(s relay.RoomStats) uint64 { return uint64(s.Pending) })},
	})
}

// RegisterMatchServers exports what a relay knows of its match
// servers (rooms protocol 2) and the rooms opened on demand.
func RegisterMatchServers(reg *prometheus.Registry, stats func() relay.MatchServerStats) {
	Register(reg, map[string]Func{
		"relay_opens_total":           {Help: "Rooms opened on demand on a match server.", Fn: func() float64 { return float64(stats().Opened) }},
		"relay_opens_full_total":      {Help: "Requests for a room on demand refused full: no match server had a free slot, or the one asked refused or did not answer.", Fn: func() float64 { return float64(stats().Full) }},
		"relay_opens_forwarded_total": {Help: "With --redis: requests for a room on demand placed at another relay of the fleet (no match server here had a free slot).", Fn: func() float64 { return float64(stats().Forwarded) }},
	}, map[string]Func{
		"relay_match_servers":           {Help: "Match servers connected (one connection each, many rooms).", Fn: func() float64 { return float64(stats().Servers) }},
		"relay_match_server_slots":      {Help: "Slots of the match servers that open rooms on demand.", Fn: func() float64 { return float64(stats().Slots) }},
		"relay_match_server_slots_used": {Help: "Of those slots, the ones holding a room.", Fn: func() float64 { return float64(stats().Used) }},
	})
}

// RegisterPlayer exports a player's counters: its ticks, ping,
// rollbacks, desyncs, resyncs and bytes. stats must be safe to call from
// the HTTP server's goroutines.
func RegisterPlayer(reg *prometheus.Registry, stats func() rewind.Stats) {
	st := func(f func(s rewind.Stats) uint64) func() float64 {
		return func() float64 { return float64(f(stats())) }
	}
	Register(reg, map[string]Func{
		"rollbacks_total":           {Help: "Rollbacks (a guessed input was wrong).", Fn: st(func(s rewind.Stats) uint64 { return s.Rollbacks })},
		"rolled_back_ticks_total":   {Help: "Ticks simulated again in rollbacks.", Fn: st(func(s rewind.Stats) uint64 { return s.RolledBackTicks })},
		"desyncs_total":             {Help: "Verified ticks whose hash differed from the server's after resimulation.", Fn: st(func(s rewind.Stats) uint64 { return s.Desyncs })},
		"resyncs_total":             {Help: "Repairs of a desynced world.", Fn: st(func(s rewind.Stats) uint64 { return s.Resyncs })},
		"late_inputs_total":         {Help: "Ticks in which the server lacked this player's input.", Fn: st(func(s rewind.Stats) uint64 { return s.LateInputs })},
		"stalls_total":              {Help: "Updates in which prediction waited at its limit.", Fn: st(func(s rewind.Stats) uint64 { return s.Stalls })},
		"bytes_in_total":            {Help: "Datagram payload bytes received.", Fn: st(func(s rewind.Stats) uint64 { return s.BytesIn })},
		"bytes_out_total":           {Help: "Datagram payload bytes sent.", Fn: st(func(s rewind.Stats) uint64 { return s.BytesOut })},
		"malformed_datagrams_total": {Help: "Datagrams dropped as malformed or stray.", Fn: st(func(s rewind.Stats) uint64 { return s.BadDatagrams })},
	}, map[string]Func{
		"verified_tick":      {Help: "The last verified tick.", Fn: st(func(s rewind.Stats) uint64 { return uint64(s.Verified) })},
		"predicted_tick":     {Help: "The tick the predicted world is at.", Fn: st(func(s rewind.Stats) uint64 { return uint64(s.Predicted) })},
		"max_rollback_ticks": {Help: "The deepest rollback, in ticks.", Fn: st(func(s rewind.Stats) uint64 { return uint64(s.MaxRollback) })},
		"ping_seconds":       {Help: "The measured round trip.", Fn: func() float64 { return stats().Ping.Seconds() }},
	})
}

// Bool is 1 for true, 0 for false.
func Bool(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
