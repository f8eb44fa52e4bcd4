package client

import (
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

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
