package tab

import (
	"strings"
	"testing"
)

// TestNetGraph: samples every NetEvery ms, per-second rates from the
// running totals, the last NetSamples kept, each strip scaled to its top.
func TestNetGraph(t *testing.T) {
	var g NetGraph
	if p := g.Plots(); len(p) != 4 || len(p[0].Values) != 0 {
		t.Fatalf("empty graph: %+v", p)
	}
	var rolled, in uint64
	for i := range 200 {
		now := float64(i * 50) // 20 a second: a sample every fifth
		rolled += 1            // 20 ticks a second
		in += 100              // 2,000 bytes a second
		ping := 5.0
		if i == 190 {
			ping = 40
		}
		g.Add(now, ping, rolled, in, 0)
	}
	p := g.Plots()
	if len(p[0].Values) != 39 {
		t.Fatalf("%d samples over 9,950 ms, want 39", len(p[0].Values))
	}
	if !strings.HasPrefix(p[1].Label, "rolled back 20.0 ticks/s") || p[1].Values[0] != 1 {
		t.Errorf("rollback strip: %q %v", p[1].Label, p[1].Values[:3])
	}
	if !strings.HasPrefix(p[2].Label, "in 2.0 KB/s") || p[3].Values[0] != 0 {
		t.Errorf("bytes strips: %q, %q", p[2].Label, p[3].Label)
	}
	if p[0].Values[len(p[0].Values)-2] != 1 || p[0].Values[0] != 5.0/40 {
		t.Errorf("ping strip not scaled to its top 40: %v", p[0].Values)
	}
	for i := 200; i < 2000; i++ {
		g.Add(float64(i*50), 5, rolled, in, 0)
	}
	if n := len(g.Plots()[0].Values); n != NetSamples {
		t.Errorf("%d samples kept, want %d", n, NetSamples)
	}
}
