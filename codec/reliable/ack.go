package reliable

// Ack says which sequence numbers (ticks, or chunk indices of a world
// transfer) a receiver holds: every one below Next, and of the 64 after
// Next (which is missing by definition), Next+1+i for each set bit i of
// Mask. The sender stops resending what an Ack covers. For ticks, "holds"
// also covers ticks the receiver no longer needs (the server acknowledges a
// client input tick it has settled without it).
//
// On the wire (inside ClientInputs and ServerTicks) Next is a zigzag varint
// relative to the message's first tick and Mask a varint present only when
// nonzero; WorldAck carries them as plain varints.
type Ack struct {
	// Next is the lowest sequence number not held; Next-1 is the highest
	// contiguous one.
	Next uint32
	// Mask has bit i set when Next+1+i is held.
	Mask uint64
}

// Has reports whether the Ack covers seq.
func (a Ack) Has(seq uint32) bool {
	d := seq - a.Next
	if int32(d) < 0 {
		return true
	}
	if d == 0 || d > 64 {
		return false
	}
	return a.Mask&(1<<(d-1)) != 0
}

// RecvWindow tracks the sequence numbers a receiver holds and makes its
// Acks. The zero value holds nothing below 0... use Reset to start at a
// given sequence number.
type RecvWindow struct {
	ack Ack
}

// Reset makes the window hold exactly every number below next.
func (w *RecvWindow) Reset(next uint32) { w.ack = Ack{Next: next} }

// Ack returns what the window holds.
func (w *RecvWindow) Ack() Ack { return w.ack }

// Has reports whether seq is held.
func (w *RecvWindow) Has(seq uint32) bool { return w.ack.Has(seq) }

// Add records seq as held and reports whether it is new. Numbers more than
// 64 past Next cannot be recorded (the window would lose track): Add
// returns false for them and the sender will send them again later.
func (w *RecvWindow) Add(seq uint32) bool {
	d := seq - w.ack.Next
	if int32(d) < 0 {
		return false
	}
	if d > 64 {
		return false
	}
	if d == 0 {
		w.ack.Next++
		// Slide over the held numbers that follow.
		for w.ack.Mask&1 != 0 {
			w.ack.Mask >>= 1
			w.ack.Next++
		}
		w.ack.Mask >>= 1
		return true
	}
	bit := uint64(1) << (d - 1)
	if w.ack.Mask&bit != 0 {
		return false
	}
	w.ack.Mask |= bit
	return true
}

// AdvanceTo marks every number below next as held (for numbers the
// receiver no longer needs).
func (w *RecvWindow) AdvanceTo(next uint32) {
	for int32(next-w.ack.Next) > 0 {
		w.Add(w.ack.Next)
	}
}
