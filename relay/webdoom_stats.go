package relay

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Reasons for drops and refusals, as logged and as metric labels.
const (
	WebDoomDropSilent      = "silent"        // a laggard not heard from for Drop
	WebDoomDropNeverJoined = "never joined"  // a launch-roster player never connected
	WebDoomDropJoinTimeout = "join timeout"  // a reservation unused for JoinTimeout
	WebDoomDropLeft        = "disconnected"  // its game socket closed
	WebDoomDropSlow        = "slow consumer" // its send queue overflowed or a write stalled
	WebDoomDropOversize    = "oversize message"

	WebDoomRefuseConnCap      = "connection cap"
	WebDoomRefuseRateCap      = "rate cap"
	WebDoomRefuseBadSlot      = "bad slot"
	WebDoomRefuseNoSession    = "no session"
	WebDoomRefuseSlotTaken    = "slot taken"
	WebDoomRefuseLobbyFull    = "lobby full"
	WebDoomRefuseHistoryCap   = "history cap"
	WebDoomRefuseSpectatorCap = "spectator cap"
	WebDoomRefuseBadPath      = "bad upgrade path"
)

// WebDoomStats counts what the relay did. It is safe to read while the
// relay runs.
type WebDoomStats struct {
	Sessions     atomic.Uint64 // sessions started
	SessionsOver atomic.Uint64 // sessions ended
	Seals        atomic.Uint64 // tics sealed
	ForcedSeals  atomic.Uint64 // tics sealed by the sweep (someone was late)
	Fabrications atomic.Uint64 // in-game cmds the relay fabricated

	mu       sync.Mutex
	drops    map[string]uint64
	refusals map[string]uint64
}

func (s *WebDoomStats) drop(reason string) {
	s.mu.Lock()
	if s.drops == nil {
		s.drops = map[string]uint64{}
	}
	s.drops[reason]++
	s.mu.Unlock()
}

func (s *WebDoomStats) refuse(reason string) {
	s.mu.Lock()
	if s.refusals == nil {
		s.refusals = map[string]uint64{}
	}
	s.refusals[reason]++
	s.mu.Unlock()
}

// Drops returns the drops so far by reason.
func (s *WebDoomStats) Drops() map[string]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.drops)
}

// Refusals returns the refusals so far by reason.
func (s *WebDoomStats) Refusals() map[string]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.refusals)
}

// webDoomCollector exports WebDoomStats (and live gauges) to Prometheus.
type webDoomCollector struct {
	stats  *WebDoomStats
	gauges func() (players, spectators, conns int, tic uint32)
	descs  map[string]*prometheus.Desc
}

func newWebDoomCollector(s *WebDoomStats, gauges func() (int, int, int, uint32)) *webDoomCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("rewind_webdoom_"+name, help, labels, nil)
	}
	return &webDoomCollector{stats: s, gauges: gauges, descs: map[string]*prometheus.Desc{
		"sessions":      d("sessions_total", "WebDoom sessions started."),
		"sessions_over": d("sessions_ended_total", "WebDoom sessions ended."),
		"seals":         d("seals_total", "Tics sealed."),
		"forced":        d("forced_seals_total", "Tics sealed by the stall sweep with cmds fabricated."),
		"fabrications":  d("fabrications_total", "In-game cmds fabricated by the relay."),
		"drops":         d("drops_total", "Players or connections dropped, by reason.", "reason"),
		"refusals":      d("refusals_total", "Connections refused, by reason.", "reason"),
		"players":       d("players", "In-game players of the running session."),
		"spectators":    d("spectators", "Spectators of the running session."),
		"conns":         d("connections", "Open WebSocket connections."),
		"tic":           d("frontier_tic", "Next tic to be sealed."),
	}}
}

// Describe implements prometheus.Collector.
func (c *webDoomCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *webDoomCollector) Collect(ch chan<- prometheus.Metric) {
	counter := func(k string, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[k], prometheus.CounterValue, float64(v), labels...)
	}
	counter("sessions", c.stats.Sessions.Load())
	counter("sessions_over", c.stats.SessionsOver.Load())
	counter("seals", c.stats.Seals.Load())
	counter("forced", c.stats.ForcedSeals.Load())
	counter("fabrications", c.stats.Fabrications.Load())
	for r, v := range c.stats.Drops() {
		counter("drops", v, r)
	}
	for r, v := range c.stats.Refusals() {
		counter("refusals", v, r)
	}
	if c.gauges != nil {
		p, s, n, tic := c.gauges()
		for k, v := range map[string]float64{"players": float64(p), "spectators": float64(s), "conns": float64(n), "tic": float64(tic)} {
			ch <- prometheus.MustNewConstMetric(c.descs[k], prometheus.GaugeValue, v)
		}
	}
}
