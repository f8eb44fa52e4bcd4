// Package cliflag holds the flag sets that more than one command of
// cmd/ declares the same way (rewind serve and rewind-bench flood: the
// UDP handshake limits), so that their names, defaults and checks are
// written once.
package cliflag

import (
	"flag"
	"fmt"
	"math"

	"github.com/rewindnet/rewind"
)

// Handshake is the UDP handshake limits (udp.Config's HandshakeRate,
// HandshakeBurst, HandshakeTotalRate and HandshakeTotalBurst, with the
// same defaults) of the commands that run a UDP match server.
type Handshake struct {
	rate, totalRate   float64
	burst, totalBurst int
}

// Add defines the flags on fs.
func (f *Handshake) Add(fs *flag.FlagSet) {
	fs.Float64Var(&f.rate, "handshake-rate", 100, "new UDP sessions (handshakes) one source IP address (IPv6: one /64) may open a second, refilling a bucket of --handshake-burst; a HELLO beyond it is dropped unanswered and its client repeats it 250ms later (negative: no limit)")
	fs.IntVar(&f.burst, "handshake-burst", 200, "with --handshake-rate: the handshakes one address may open at once")
	fs.Float64Var(&f.totalRate, "handshake-total-rate", 100, "handshakes of all addresses together a second, refilling a bucket of --handshake-total-burst: the budget that bounds the handshakes' CPU (0.3-0.8 ms of a core each) whatever a flood brings; spent, HELLOs wait in the handshake queue, a newcomer's first (negative: no budget)")
	fs.IntVar(&f.totalBurst, "handshake-total-burst", 200, "with --handshake-total-rate: the handshakes of all addresses together at once")
}

// Apply checks the flags and sets them in c; its error is a usage error.
func (f *Handshake) Apply(c *rewind.UDPConfig) error {
	if f.rate == 0 || f.totalRate == 0 || math.IsNaN(f.rate) || math.IsNaN(f.totalRate) {
		return fmt.Errorf("--handshake-rate %g, --handshake-total-rate %g: want handshakes a second, or a negative rate for no limit", f.rate, f.totalRate)
	}
	if f.burst < 1 || f.totalBurst < 1 {
		return fmt.Errorf("--handshake-burst %d, --handshake-total-burst %d: want 1 or more", f.burst, f.totalBurst)
	}
	c.HandshakeRate, c.HandshakeBurst = f.rate, f.burst
	c.HandshakeTotalRate, c.HandshakeTotalBurst = f.totalRate, f.totalBurst
	return nil
}
