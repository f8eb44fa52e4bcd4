package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// dashboardFile is the Grafana dashboard of docs/operations.md.
const dashboardFile = "../../docs/grafana/rewind-dashboard.json"

var metricName = regexp.MustCompile(`\brewind_[a-z0-9_]+`)

// dashboardMetrics returns the metric names the dashboard's queries name.
func dashboardMetrics(t *testing.T, b []byte) []string {
	t.Helper()
	var d struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var names []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			names = append(names, metricName.FindAllString(tg.Expr, -1)...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// missingMetrics returns the names not exported in any of the /metrics
// texts.
func missingMetrics(names []string, texts ...string) []string {
	have := map[string]bool{}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "rewind_") {
				have[metricName.FindString(line)] = true
			}
		}
	}
	var missing []string
	for _, n := range names {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	return missing
}

// TestDashboardMetricsCanFail: the check reports a metric no process
// exports.
func TestDashboardMetricsCanFail(t *testing.T) {
	names := dashboardMetrics(t, []byte(`{"panels":[{"targets":[{"expr":"sum(rate(rewind_ticks_total[1m])) / rewind_renamed"}]}]}`))
	if got := missingMetrics(names, "rewind_ticks_total 5\n"); !slices.Equal(got, []string{"rewind_renamed"}) {
		t.Fatalf("missing = %q, want [rewind_renamed]", got)
	}
}

// TestDashboardMetrics: every metric the Grafana dashboard in docs/
// queries is in /metrics of a running relay or match server (serve
// --rooms: the many-matches server exports the single host's counters and
// more), so that a renamed metric breaks this test, not the dashboard;
// and both answer the probes /healthz and /readyz with 200 (issue 32).
func TestDashboardMetrics(t *testing.T) {
	testutil.SkipSockets(t)
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	names := dashboardMetrics(t, b)
	if len(names) < 10 {
		t.Fatalf("the dashboard queries %d metrics: %q", len(names), names)
	}
	r := startCommand(t, serveRelay, []string{"--http", "127.0.0.1:0", "--turn", "none", "--metrics", "127.0.0.1:0"}, "http", "metrics")
	defer r.stop(t)
	s := startCommand(t, serve, []string{"--rooms", "2", "--udp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--status", "0"}, "http")
	defer s.stop(t)
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, addr := range []string{r.vals["http"], s.vals["http"]} {
		for _, p := range []string{"/healthz", "/readyz"} {
			if code, body := get("http://" + addr + p); code != 200 {
				t.Errorf("GET %s%s: %d %q, want 200", addr, p, code, body)
			}
		}
	}
	_, relayMetrics := get("http://" + r.vals["metrics"] + "/metrics")
	_, serveMetrics := get("http://" + s.vals["http"] + "/metrics")
	if missing := missingMetrics(names, relayMetrics, serveMetrics); len(missing) > 0 {
		t.Errorf("the dashboard queries metrics no relay or server exports: %q", missing)
	}
}
