package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rewindnet/rewind/relay/webdoom"
)

// webDoomCollector exports a WebDoom server's counters (webdoom.Stats) and
// live gauges (webdoom.Status) as the rewind_webdoom_* metrics.
type webDoomCollector struct {
	srv   *webdoom.Server
	descs map[string]*prometheus.Desc
}

func NewWebDoomCollector(srv *webdoom.Server) *webDoomCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(Namespace+"_webdoom_"+name, help, labels, nil)
	}
	return &webDoomCollector{srv: srv, descs: map[string]*prometheus.Desc{
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
	st := c.srv.Stats()
	counter("sessions", st.Sessions)
	counter("sessions_over", st.SessionsOver)
	counter("seals", st.Seals)
	counter("forced", st.ForcedSeals)
	counter("fabrications", st.Fabrications)
	for r, v := range st.Drops {
		counter("drops", v, r)
	}
	for r, v := range st.Refusals {
		counter("refusals", v, r)
	}
	now := c.srv.Status()
	for k, v := range map[string]float64{"players": float64(now.Players), "spectators": float64(now.Spectators), "conns": float64(now.Conns), "tic": float64(now.Tic)} {
		ch <- prometheus.MustNewConstMetric(c.descs[k], prometheus.GaugeValue, v)
	}
}
