package metrics

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
)

// dropReason is a reason a UDP host drops a datagram it read, a label
// value of udp_dropped_datagrams_total. The set is fixed (never a label per
// address or room), so the series stay bounded whatever a flood sends.
type dropReason struct {
	name string
	// host reads the count from a host's stats (one match or many).
	host func(s rewind.HostStats) uint64
	// multi, when set, reads it from a host.Multi's stats instead; such a
	// reason exists only with serve --rooms.
	multi func(s host.Stats) uint64
}

// dropReasons are every reason, in the order printed: the socket's
// (transport), then the match's, then the router's (host.Multi only).
var dropReasons = []dropReason{
	{name: "malformed", host: func(s rewind.HostStats) uint64 { return s.UDP.Malformed }},
	{name: "unknown_session", host: func(s rewind.HostStats) uint64 { return s.UDP.UnknownConn }},
	{name: "bad_token", host: func(s rewind.HostStats) uint64 { return s.UDP.BadToken }},
	{name: "bad_seal", host: func(s rewind.HostStats) uint64 { return s.UDP.BadSeal }},
	{name: "replayed", host: func(s rewind.HostStats) uint64 { return s.UDP.Replayed }},
	{name: "throttled", host: func(s rewind.HostStats) uint64 { return s.UDP.Throttled }},
	{name: "handshake_queue_full", host: func(s rewind.HostStats) uint64 { return s.UDP.HandshakesDropped }},
	{name: "queue_full", host: func(s rewind.HostStats) uint64 { return s.UDP.QueueDropped }},
	{name: "match_malformed", host: func(s rewind.HostStats) uint64 { return s.Total.BadDatagrams }},
	{name: "unrouted", multi: func(s host.Stats) uint64 { return s.Unrouted }},
	{name: "no_room", multi: func(s host.Stats) uint64 { return s.NoRoom }},
	{name: "match_queue_full", multi: func(s host.Stats) uint64 { return s.QueueDropped }},
}

// dropHelp is udp_dropped_datagrams_total's help.
const dropHelp = "UDP datagrams read and dropped, by reason: malformed (UDP framing), unknown_session (a frame for no session, or from another address), " +
	"bad_token (a hello with a forged or stale retry token), bad_seal (a sealed frame that does not open), replayed, " +
	"throttled (a proven hello over its address's handshake rate), handshake_queue_full (a proven hello the handshake workers' queue had no room for), queue_full (the match fell behind), match_malformed (a session's datagram the match could not parse), " +
	"and with --rooms unrouted (a peer's first datagram not a hello), no_room (a hello for no room; answered with a refusal), match_queue_full."

// RegisterDrops exports udp_dropped_datagrams_total{reason} for a
// host (one; multi nil) or a host.Multi (the router's reasons too), and
// udp_retries_total (hellos without a token, answered statelessly: what
// a hello flood from many ports mostly shows as).
func RegisterDrops(reg *prometheus.Registry, one func() rewind.HostStats, multi func() host.Stats) {
	for _, r := range dropReasons {
		var fn func() float64
		switch {
		case r.multi == nil:
			fn = func() float64 { return float64(r.host(one())) }
		case multi != nil:
			fn = func() float64 { return float64(r.multi(multi())) }
		default:
			continue
		}
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: Namespace, Name: "udp_dropped_datagrams_total", Help: dropHelp,
			ConstLabels: prometheus.Labels{"reason": r.name},
		}, fn))
	}
	Register(reg, map[string]Func{
		"udp_retries_total": {Help: "Hellos without a valid retry token, answered with a RETRY (no state kept).", Fn: func() float64 { return float64(one().UDP.Retries) }},
	}, nil)
}

// DropCounts returns the datagrams dropped by reason between two samples
// of a host.Multi's stats (bench flood), in dropReasons' order.
func DropCounts(before, after host.Stats) []uint64 {
	out := make([]uint64, len(dropReasons))
	for i, r := range dropReasons {
		if r.multi != nil {
			out[i] = r.multi(after) - r.multi(before)
		} else {
			out[i] = r.host(MultiAsHost(after)) - r.host(MultiAsHost(before))
		}
	}
	return out
}

// FormatDrops writes counts as "reason:N,reason:N" (the reasons that
// counted any), or "none".
func FormatDrops(counts []uint64) string {
	var b strings.Builder
	for i, n := range counts {
		if n == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(dropReasons[i].name + ":" + strconv.FormatUint(n, 10))
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// MultiAsHost is a host.Multi's stats as a one-match host's (the totals
// and the socket's counters).
func MultiAsHost(s host.Stats) rewind.HostStats {
	return rewind.HostStats{Matches: s.Matches, Running: s.Running > 0, Total: s.Total, UDP: s.UDP, RefusedBy: s.RefusedBy}
}
