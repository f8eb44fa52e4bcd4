package tab

import "fmt"

// The net graph keeps a sample every NetEvery ms, NetSamples of them
// (the last 15 s).
const (
	NetEvery   = 250
	NetSamples = 60
)

// NetGraph is the net graph's data, the same for the page (a 2-D canvas)
// and the window (Ebitengine): the ping the client measures, the ticks
// rolled back and the bytes received and sent per second, sampled every
// NetEvery ms over the last NetSamples samples. The zero value is ready.
type NetGraph struct {
	at                            float64 // ms of the last sample
	rolled, in, out               uint64  // the totals at it
	have                          bool
	ping, rollbackTicks, bin, bou []float64
}

// Add takes the figures at now (ms): ping (ms) and the running totals of
// ticks rolled back (simulated again) and of bytes received and sent. It
// keeps a sample once NetEvery ms have passed since the last.
func (g *NetGraph) Add(now, ping float64, rolledBack, bytesIn, bytesOut uint64) {
	if !g.have {
		g.at, g.rolled, g.in, g.out, g.have = now, rolledBack, bytesIn, bytesOut, true
		return
	}
	dt := now - g.at
	if dt < NetEvery {
		return
	}
	perSec := func(total, last uint64) float64 {
		if total < last { // a new session's totals
			return 0
		}
		return float64(total-last) * 1000 / dt
	}
	push := func(s []float64, v float64) []float64 {
		if len(s) == NetSamples {
			s = append(s[:0], s[1:]...)
		}
		return append(s, v)
	}
	g.ping = push(g.ping, ping)
	g.rollbackTicks = push(g.rollbackTicks, perSec(rolledBack, g.rolled))
	g.bin = push(g.bin, perSec(bytesIn, g.in))
	g.bou = push(g.bou, perSec(bytesOut, g.out))
	g.at, g.rolled, g.in, g.out = now, rolledBack, bytesIn, bytesOut
}

// Plot is one strip of the net graph: its label (with the newest value
// and the strip's scale) and its samples, oldest first, each in [0, 1]
// of the strip's height.
type Plot struct {
	Label  string
	Values []float64
	// RGB is the strip's colour.
	RGB [3]byte
}

// Plots returns the graph's strips: ping, ticks rolled back per second,
// bytes received and sent per second. Each is scaled to its largest
// sample (at least a floor: 20 ms, 10 ticks, 1 KB/s).
func (g *NetGraph) Plots() []Plot {
	strip := func(name string, s []float64, floor float64, unit string, k float64, rgb [3]byte) Plot {
		top, last := floor, 0.0
		for _, v := range s {
			top = max(top, v)
		}
		if len(s) > 0 {
			last = s[len(s)-1]
		}
		p := Plot{Label: fmt.Sprintf("%s %.1f %s (top %.0f)", name, last*k, unit, top*k), Values: make([]float64, len(s)), RGB: rgb}
		for i, v := range s {
			p.Values[i] = v / top
		}
		return p
	}
	return []Plot{
		strip("ping", g.ping, 20, "ms", 1, [3]byte{136, 204, 136}),
		strip("rolled back", g.rollbackTicks, 10, "ticks/s", 1, [3]byte{255, 136, 136}),
		strip("in", g.bin, 1024, "KB/s", 1.0/1024, [3]byte{136, 170, 255}),
		strip("out", g.bou, 1024, "KB/s", 1.0/1024, [3]byte{255, 204, 102}),
	}
}
