package client

import (
	"time"

	"github.com/rewindnet/rewind/world"
)

// debugDesync is the client's side of the desync debugger (Config.
// DebugDesync): on a repair it keeps its own world of the desynced tick,
// asks for the server's whole world of that tick, and hands both to the
// game's callback once the server's came.
type debugDesync struct {
	held bool
	tick uint32
	ours *world.World // the client's own world of tick
}

// debugRepair starts the repair of tick t in debug mode: c.w holds the
// client's own world of t, which is kept; the server's whole world of t is
// asked for.
func (c *Client[I]) debugRepair(now time.Time, t uint32) {
	d := &c.debug
	if d.ours == nil {
		d.ours = world.NewFromLayout(c.w.Layout())
	}
	if err := d.ours.CopyFrom(c.w); err != nil {
		panic("client: world of another layout: " + err.Error())
	}
	d.held, d.tick = true, t
	c.startFetch(now, t, 0, false)
	c.fetch.repair = true
	_ = c.askWhole(now) // a failed send is retried by the fetch timers
}

// debugCompare is called when the fetched world of tick t is in c.w: after
// a repair of the tick kept, the game's callback gets both worlds.
func (c *Client[I]) debugCompare(t uint32, repair bool) {
	d := &c.debug
	if !d.held {
		return
	}
	d.held = false
	if repair && d.tick == t && c.cfg.DebugDesync != nil {
		c.cfg.DebugDesync(t, d.ours, c.w)
	}
}
