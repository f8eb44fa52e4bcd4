package relay

import (
	"fmt"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Rooms on demand across a fleet of relays: each relay publishes the
// free slots of its on-demand match servers (roomdir/slots.go has the
// keys), and a lobby's "open" at a relay with no local match server with
// a free slot goes to the live relay whose servers have the most free
// slots, forwarded there exactly as a join of a room hosted there
// (fleet.go): the other relay stands the lobby in, runs its "open" as
// for a local lobby (its limits, its pick among its servers, the code's
// claim), and the "opened" (or "full") comes back over the lobby's
// channel, in order. A stand-in's open is never placed further: when the
// slots went meanwhile, the lobby is told "full".

// fleetSlots publishes a relay's on-demand slots: one write at a time,
// each of the hub's state when it is made, so the last one written is
// never older than an earlier one.
type fleetSlots struct {
	mu      sync.Mutex // held over a snapshot and its write
	pending bool       // a publication is queued (guarded by hub.mu)
}

// localSlots counts the on-demand match servers connected here, their
// slots and those in use. h.mu is held.
func (h *roomHub) localSlots() roomdir.Slots {
	var s roomdir.Slots
	for _, c := range h.conns {
		if c.role != roleServer || !c.srv.onDemand || c.killed {
			continue
		}
		s.Servers++
		s.Slots += c.srv.slots
		s.Used += len(c.srv.rooms)
	}
	return s
}

// slotsChanged queues a publication of this relay's slots for the fleet
// (once for any number of changes before it runs). h.mu is held.
func (h *roomHub) slotsChanged() {
	if h.fleet == nil || h.fleet.slots.pending {
		return
	}
	h.fleet.slots.pending = true
	h.later(h.fleet.publishSlots)
}

// publishSlots writes the hub's slots as they are now. Called with
// hub.mu released.
func (l *fleetLink) publishSlots() {
	l.slots.mu.Lock()
	defer l.slots.mu.Unlock()
	l.hub.mu.Lock()
	l.slots.pending = false
	s := l.hub.localSlots()
	l.hub.mu.Unlock()
	if err := l.dir.PublishSlots(s); err != nil {
		l.hub.cfg.Log.Debug("relay: publishing slots", "err", err) // rewritten at the next refresh
	}
}

// placeOpen decides where lobby c's open goes when no match server here
// has a free slot: d.sendTo names the relay of the fleet to forward it
// to, or d.others counts the fleet's slots, every one in use. A stand-in
// (an open forwarded here) is not placed further. Called outside the
// hub's lock; reports whether it decided.
func (h *roomHub) placeOpen(c *roomConn, d *dirAnswer) bool {
	if h.fleet == nil || c.standIn {
		return false
	}
	h.mu.Lock()
	s, _, _, _ := h.pickServer()
	h.mu.Unlock()
	if s != nil {
		return false
	}
	relay, others, ok := h.fleet.dir.PickRelay()
	if !ok {
		return false // Redis did not answer: the lobby hears of this relay's servers alone
	}
	d.sendTo, d.others = relay, &others
	return true
}

// openElsewhere forwards lobby c's open to the relay d placed it at, or
// refuses it "full" with the fleet's count. h.mu is held.
func (h *roomHub) openElsewhere(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	if d.sendTo != "" {
		h.serving.forwarded++
		h.chargeOpen(c, now) // caps.go
		h.cfg.Log.Debug("relay: open placed at another relay", "conn", c.id, "relay", d.sendTo)
		h.fleet.forward(c, d.sendTo, m)
		return
	}
	h.serving.full++
	h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrFull, h.localSlots().Add(*d.others).FullReason("in the fleet")))
}

// endAt reports whether the end of d.rec, a live room with the right
// key, is for the room's relay to make, another live relay of the fleet
// (d.sendTo): ended there, its host and players hear it at once (a lobby
// that opened a room on demand elsewhere ends it with its key through
// its own relay). A host's end, a stand-in's, or one of a room whose
// relay is dead is made here. Called outside the hub's lock.
func (h *roomHub) endAt(c *roomConn, d *dirAnswer) bool {
	if !h.fleet.remoteOwner(d.rec) || c.standIn {
		return false
	}
	h.mu.Lock()
	role := c.role
	h.mu.Unlock()
	if role != roleNone {
		return false
	}
	alive, ok := h.fleet.dir.Alive([]string{d.rec.Owner})
	if !ok || !alive[0] {
		return false
	}
	d.sendTo = d.rec.Owner
	return true
}
