package client

import (
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Recorder receives what a replay of the match needs (Config.Record):
// server.Recorder's interface, so that one recorder (replay.Recorder)
// serves either. A client records the ticks it verified, from the world it
// started from (the match's start, or the world it loaded when it joined
// late; RecordStart comes again if it has to load a newer world).
type Recorder interface {
	// RecordStart is called with the replay's header (the match's side
	// of it, the welcome's match settings included), the world after tick
	// and who is present then, valid only during the call.
	RecordStart(h codec.ReplayHeader, tick uint32, w *world.World, present []bool)
	// RecordTick is called for every verified tick, in order, with its
	// events, every slot's packed input, the world's full hash and nil
	// (the client's world is ahead of it).
	RecordTick(tick uint32, events []game.Event, inputs []byte, hash uint64, w *world.World)
}

// recordStart tells the recorder the machine k starts from c.w after
// tick t.
func (c *Client[I]) recordStart(k *core[I], t uint32) {
	r := c.cfg.Record
	if r == nil {
		return
	}
	k.record = r
	h := codec.ReplayHeader{Fingerprint: c.fp, Layout: c.w.Layout().Hash(), TickRate: uint16(c.rate),
		Players: uint16(k.n), InputSize: uint16(k.size), Recorder: codec.RecordedByClient,
		MatchSettings: c.join.settings}
	if ms, ok := game.As[game.ModuleSource](c.g); ok {
		h.Module = ms.ModuleBytes() // the replay plays with no file but itself
	}
	r.RecordStart(h, t, c.w, k.presentV)
}

// recordTick gives the recorder verified tick t.
func (c *core[I]) recordTick(t uint32) {
	if c.record != nil {
		s := t & c.mask
		c.record.RecordTick(t, c.confEv[s], c.conf[s], c.hashOf(t), nil)
	}
}
