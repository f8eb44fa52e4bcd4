package client

import "github.com/rewindnet/rewind/codec"

// Private input fields (codec/inputs: `rewind:"private"`). The server
// relays every input with its private fields zero, our own included, yet
// steps the world with the real ones: so the client puts its own private
// fields back into its confirmed input of each tick, as the server had
// them — those of the input it sent for that tick when it arrived in time,
// else those of the last one that did (the server repeats a late input),
// zero from a join on. Other players' private fields stay zero: where
// Step reads them the client mispredicts, and the world's repair corrects
// it (docs/scenes.md).

// ownPrivate puts our private fields into the confirmed inputs of tick t
// (c.rx.conf), given the tick's decoded body (c.rx.tk).
func (c *Client[I]) ownPrivate(t uint32) {
	size := c.it.Size()
	me := uint8(c.me)
	if len(c.rx.priv) != size {
		c.rx.priv = make([]byte, size)
	}
	for _, e := range c.rx.tk.Events {
		if e.Player == me && e.Kind == codec.EventJoin {
			clear(c.rx.priv) // the server starts a joining player from zero
		}
	}
	if c.rx.dec.Roster().Input(me) == nil {
		return // not in the match at t
	}
	k := c.core
	if !c.rx.tk.Late.Has(me) && k.ownAt[t&k.mask] == t {
		copy(c.rx.priv, k.own[t&k.mask])
	}
	c.it.Schema.CopyPrivate(c.rx.conf[int(me)*size:(int(me)+1)*size], c.rx.priv)
}
