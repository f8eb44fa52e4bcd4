package reliable

import "time"

// ResendConfig holds the timers of a Resender. Zero fields take the
// defaults in DefaultResendConfig.
type ResendConfig struct {
	// InitialRTT is the round-trip estimate before any sample.
	InitialRTT time.Duration
	// MinRTO and MaxRTO bound the resend timeout (srtt + 4*rttvar).
	MinRTO, MaxRTO time.Duration
	// ReorderThreshold (Selective only): a number is taken as lost, and
	// resent at once, when a number at least this much higher, sent after
	// it, has been acknowledged (QUIC's packet threshold). 0 means 3.
	ReorderThreshold uint32
	// Selective makes Due return only the numbers a gap in the Acks shows
	// lost or that timed out. By default (false) Due returns every
	// unacknowledged number each time: the sender puts everything the peer
	// lacks in every datagram, up to the MTU, so a loss is made good by the
	// next datagram. docs/benchmarks.md compares the two: for tick streams
	// the default costs about three times the bytes (still under 2 KB/s at
	// 150 ms RTT) and never stalls the stream for a round trip. The server
	// (server.Config) uses Selective by default, with the tick before each
	// fresh one and every tick an ack shows missing sent along; its
	// ResendAll chooses this default instead (docs/wire.md, Reliability).
	Selective bool
}

// DefaultResendConfig is the configuration zero fields default to.
var DefaultResendConfig = ResendConfig{
	InitialRTT:       200 * time.Millisecond,
	MinRTO:           30 * time.Millisecond,
	MaxRTO:           2 * time.Second,
	ReorderThreshold: 3,
}

// ResendWindow is how many numbers past the oldest unacknowledged one a
// Resender tracks; Track refuses numbers beyond it.
const ResendWindow = 1024

type sentInfo struct {
	at    time.Time // last send
	first time.Time // first send
	sends uint16
	acked bool
}

// Resender is the sending half of reliability over datagrams for one
// stream of sequence numbers (a client's server ticks, a client's inputs, a
// world transfer's chunks): it remembers when each number was sent, takes
// the peer's Acks, estimates the round trip, and says which numbers to send
// again — at once when a gap in the Ack shows a loss, or after a timeout.
// It is a state machine: time comes in as now; it never reads the clock.
type Resender struct {
	cfg          ResendConfig
	base         uint32 // lowest number not acknowledged
	next         uint32 // one past the highest number sent
	largestAcked uint32 // valid when anyAcked
	anyAcked     bool
	largestAt    time.Time // first send time of largestAcked
	ring         [ResendWindow]sentInfo
	srtt, rttvar time.Duration
	hasRTT       bool
}

// NewResender returns a Resender whose first number is first.
func NewResender(cfg ResendConfig, first uint32) *Resender {
	r := new(Resender)
	r.Reset(cfg, first)
	return r
}

// Reset makes r as NewResender(cfg, first) would return it, forgetting
// everything it tracked and its round-trip estimate, without allocating:
// a Resender is about 57 KB (its window of ResendWindow numbers), which a
// server reuses from one player to the next.
func (r *Resender) Reset(cfg ResendConfig, first uint32) {
	d := DefaultResendConfig
	if cfg.InitialRTT == 0 {
		cfg.InitialRTT = d.InitialRTT
	}
	if cfg.MinRTO == 0 {
		cfg.MinRTO = d.MinRTO
	}
	if cfg.MaxRTO == 0 {
		cfg.MaxRTO = d.MaxRTO
	}
	if cfg.ReorderThreshold == 0 {
		cfg.ReorderThreshold = d.ReorderThreshold
	}
	clear(r.ring[:])
	r.cfg, r.base, r.next = cfg, first, first
	r.largestAcked, r.anyAcked, r.largestAt = 0, false, time.Time{}
	r.srtt, r.rttvar, r.hasRTT = cfg.InitialRTT, cfg.InitialRTT/2, false
}

// Base returns the lowest number not yet acknowledged.
func (r *Resender) Base() uint32 { return r.base }

// Next returns one past the highest number sent.
func (r *Resender) Next() uint32 { return r.next }

// RTT returns the smoothed round-trip estimate.
func (r *Resender) RTT() time.Duration { return r.srtt }

// RTO returns the current resend timeout.
func (r *Resender) RTO() time.Duration {
	rto := r.srtt + 4*r.rttvar
	return min(max(rto, r.cfg.MinRTO), r.cfg.MaxRTO)
}

// Acked reports whether seq has been acknowledged (numbers below Base
// always are).
func (r *Resender) Acked(seq uint32) bool {
	if int32(seq-r.base) < 0 {
		return true
	}
	if int32(seq-r.next) >= 0 {
		return false
	}
	return r.ring[seq%ResendWindow].acked
}

// Sent records that seq was sent (first time or again) at now. It returns
// false, recording nothing, for a number already acknowledged or beyond
// Base+ResendWindow.
func (r *Resender) Sent(seq uint32, now time.Time) bool {
	if int32(seq-r.base) < 0 || seq-r.base >= ResendWindow {
		return false
	}
	for int32(seq-r.next) >= 0 {
		r.ring[r.next%ResendWindow] = sentInfo{}
		r.next++
	}
	s := &r.ring[seq%ResendWindow]
	if s.acked {
		return false
	}
	if s.sends == 0 {
		s.first = now
	}
	s.at = now
	if s.sends < 0xFFFF {
		s.sends++
	}
	return true
}

// OnAck applies the peer's Ack at now and returns how many numbers it newly
// acknowledged. The round trip is sampled from the highest newly
// acknowledged number if it was sent only once (by default, where numbers
// are sent many times, from its first send).
func (r *Resender) OnAck(a Ack, now time.Time) int {
	newly := 0
	var sample *sentInfo
	var sampleSeq uint32
	ack := func(seq uint32) {
		s := &r.ring[seq%ResendWindow]
		if s.acked || s.sends == 0 {
			return
		}
		s.acked = true
		newly++
		if !r.anyAcked || int32(seq-r.largestAcked) > 0 {
			r.anyAcked, r.largestAcked, r.largestAt = true, seq, s.first
		}
		if sample == nil || int32(seq-sampleSeq) > 0 {
			sample, sampleSeq = s, seq
		}
	}
	// Everything below a.Next (within what was sent).
	end := a.Next
	if int32(end-r.next) > 0 {
		end = r.next
	}
	for seq := r.base; int32(seq-end) < 0; seq++ {
		ack(seq)
	}
	for m, i := a.Mask, uint32(0); m != 0; m, i = m>>1, i+1 {
		seq := a.Next + 1 + i
		if m&1 != 0 && int32(seq-r.base) >= 0 && int32(seq-r.next) < 0 {
			ack(seq)
		}
	}
	// Karn's rule: sample only numbers sent once, except in the default
	// mode where every number is sent many times and the first send, which
	// usually arrives, is the reference.
	if sample != nil && (sample.sends == 1 || !r.cfg.Selective) {
		rtt := now.Sub(sample.first)
		if rtt >= 0 {
			if !r.hasRTT {
				r.srtt, r.rttvar, r.hasRTT = rtt, rtt/2, true
			} else {
				d := r.srtt - rtt
				if d < 0 {
					d = -d
				}
				r.rttvar = (3*r.rttvar + d) / 4
				r.srtt = (7*r.srtt + rtt) / 8
			}
		}
	}
	for r.base != r.next && r.ring[r.base%ResendWindow].acked {
		r.base++
	}
	return newly
}

// Due appends to dst the numbers to send again at now, ascending: by
// default every unacknowledged number; with Selective, those a gap in the
// Acks shows lost (a number ReorderThreshold or more higher, first sent
// after this one's last send, was acknowledged) and those unacknowledged
// for longer than RTO since their last send. Senders fill a datagram from
// the front (oldest first) up to the MTU.
func (r *Resender) Due(now time.Time, dst []uint32) []uint32 {
	rto := r.RTO()
	for seq := r.base; seq != r.next; seq++ {
		s := &r.ring[seq%ResendWindow]
		if s.acked || s.sends == 0 {
			continue
		}
		switch {
		case !r.cfg.Selective:
		case r.anyAcked && int32(r.largestAcked-seq) >= int32(r.cfg.ReorderThreshold) &&
			!r.largestAt.Before(s.at):
		case now.Sub(s.at) >= rto:
		default:
			continue
		}
		dst = append(dst, seq)
	}
	return dst
}
