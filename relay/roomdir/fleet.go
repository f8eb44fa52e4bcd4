package roomdir

import (
	"context"
	"time"
)

// Fleet is a Directory shared by the relay processes of a fleet (Redis
// is the one there is): besides the rooms, each relay's liveness, the
// fleet's failed-join throttle per address, the relays' on-demand slots
// and a message channel to each relay. The hub of package relay links
// its relay to the others through it (relay/fleet.go). Methods are safe
// for concurrent use; a Redis that does not answer fails safe as each
// method says.
type Fleet interface {
	Directory
	// Self returns this relay process's ID, the Owner of the rooms it
	// hosts.
	Self() string
	// RefreshEvery returns how often the hub calls Refresh.
	RefreshEvery() time.Duration
	// Refresh extends the life of the live rooms among rooms that this
	// relay owns, and this relay's liveness; after the directory lost
	// its rooms, it writes back those it has not (again: how many).
	Refresh(rooms []Record) (again int, err error)
	// Alive reports which of relays are alive; ok is false if the
	// directory did not answer (then nobody is taken for dead).
	Alive(relays []string) (alive []bool, ok bool)
	// Adopt makes this relay the owner of the live room under code if
	// the dead relay dead still owns it; false if not so.
	Adopt(code, dead string) bool
	// DropAlive takes this relay's liveness out (a relay closing cleanly).
	DropAlive()
	// JoinThrottled reports whether the fleet refuses a join from
	// addrKey at now under lim: the address's failed joins, or the
	// fleet's budget spent while the address failed lately.
	JoinThrottled(addrKey string, now time.Time, lim FailLimits) bool
	// JoinFailed counts a failed join from addrKey in the address's and
	// the fleet's buckets.
	JoinFailed(addrKey string, now time.Time, lim FailLimits)
	// PublishSlots publishes this relay's on-demand slots for the fleet.
	PublishSlots(s Slots) error
	// PickRelay returns the live relay, other than this one, whose match
	// servers have the most free slots ("" if none has one), and the sum
	// of every other live relay's slots; ok is false if the directory
	// did not answer.
	PickRelay() (relay string, others Slots, ok bool)
	// Listen calls handle, from one goroutine, with each message another
	// relay publishes to this one, in the order published, until stop is
	// called; stop returns once handle has returned for the last time.
	Listen(handle func(msg []byte)) (stop func())
	// Publish sends msg to relay (a message to a relay that is gone is
	// lost); the hub publishes from one goroutine, so a relay's messages
	// to another keep their order.
	Publish(relay string, msg []byte)
}

var _ Fleet = (*Redis)(nil)

// channel is relay's pub/sub channel.
func (d *Redis) channel(relay string) string { return d.cfg.Prefix + "relay:" + relay }

// Listen implements Fleet: it subscribes to this relay's channel, waiting
// up to ConnectWait for the subscription's confirmation (go-redis
// subscribes again if it failed), and starts the goroutine that calls
// handle.
func (d *Redis) Listen(handle func(msg []byte)) (stop func()) {
	ps := d.rdb.Subscribe(context.Background(), d.channel(d.self))
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.ConnectWait)
	_, _ = ps.Receive(ctx)
	cancel()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		ch := ps.Channel()
		for {
			select {
			case <-quit:
				return
			case pm, ok := <-ch:
				if !ok {
					return
				}
				handle([]byte(pm.Payload))
			}
		}
	}()
	return func() {
		close(quit)
		ps.Close()
		<-done
	}
}

// Publish implements Fleet, bounded by OpTimeout.
func (d *Redis) Publish(relay string, msg []byte) {
	ctx, cancel := d.ctx()
	defer cancel()
	d.rdb.Publish(ctx, d.channel(relay), msg)
}
