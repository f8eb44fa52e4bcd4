package server

import (
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// checkpoint is a snapshot of the server's world after a tick, with who was
// present then.
type checkpoint struct {
	tick    uint32
	valid   bool
	snap    world.Snapshot
	present []bool
}

// pastWorld is the server's world at an earlier tick, rebuilt from a
// checkpoint and the kept ticks, for page hashes and pages of that tick.
type pastWorld struct {
	w       *world.World
	tick    uint32
	valid   bool
	hashes  []uint64 // page hashes of w (when hashed)
	hashed  bool
	present []bool
}

// initHistory sets up the checkpoint ring (covering History) and takes the
// checkpoint of tick 0.
func (s *Server[I]) initHistory() {
	every := max(1, int(s.cfg.Checkpoint/s.dt))
	s.ckEvery = uint32(every)
	n := int(s.hmask+1)/every + 2
	s.cks = make([]checkpoint, n)
	for i := range s.cks {
		s.cks[i].present = make([]bool, s.cfg.MaxPlayers)
	}
	s.past.w = world.NewFromLayout(s.w.Layout())
	s.past.present = make([]bool, s.cfg.MaxPlayers)
	s.pastTyped = make([]I, s.cfg.MaxPlayers)
	s.checkpoint(0)
}

// checkpoint snapshots the world after tick t.
func (s *Server[I]) checkpoint(t uint32) {
	ck := &s.cks[(t/s.ckEvery)%uint32(len(s.cks))]
	s.w.SnapshotInto(&ck.snap)
	copy(ck.present, s.present)
	ck.tick, ck.valid = t, true
}

// worldAt returns the server's world after tick t: the live world for the
// last tick run, else the newest checkpoint at or before t with the kept
// ticks since replayed. ok is false when t is not within reach (older than
// every checkpoint whose ticks are still kept, or not run yet).
func (s *Server[I]) worldAt(t uint32) (w *world.World, ok bool) {
	if t == s.tick {
		return s.w, true
	}
	if int32(t-s.tick) > 0 {
		return nil, false
	}
	if s.past.valid && s.past.tick == t {
		return s.past.w, true
	}
	var best *checkpoint
	for i := range s.cks {
		ck := &s.cks[i]
		if ck.valid && int32(ck.tick-t) <= 0 && (best == nil || int32(ck.tick-best.tick) > 0) {
			best = ck
		}
	}
	if best == nil {
		return nil, false
	}
	for u := best.tick + 1; int32(u-t) <= 0; u++ {
		if s.hist[u&s.hmask].tick != u {
			return nil, false
		}
	}
	p := &s.past
	p.valid, p.hashed = false, false
	if err := p.w.Restore(&best.snap); err != nil {
		panic("server: checkpoint of another layout: " + err.Error())
	}
	copy(p.present, best.present)
	var tk game.Tick[I]
	for u := best.tick + 1; int32(u-t) <= 0; u++ {
		rec := &s.hist[u&s.hmask]
		for _, e := range rec.events {
			if int(e.Player) < len(p.present) {
				p.present[e.Player] = e.Kind == game.Join
			}
		}
		for id := range s.pastTyped {
			s.it.Unpack(rec.inputs[id*s.size:(id+1)*s.size], &s.pastTyped[id])
		}
		tk.Number, tk.Events, tk.Inputs, tk.Present = u, rec.events, s.pastTyped, p.present
		s.g.Step(p.w, &tk)
	}
	if p.w.Hash() != s.hist[t&s.hmask].hash {
		// The game stepped the same tick to another world: it is not
		// deterministic, and no page of this tick can be trusted.
		s.stats.ReplayMismatches++
		return nil, false
	}
	p.tick, p.valid = t, true
	return p.w, true
}

// pageHashesAt returns the page hashes of the world after tick t.
func (s *Server[I]) pageHashesAt(t uint32) ([]uint64, bool) {
	w, ok := s.worldAt(t)
	if !ok {
		return nil, false
	}
	if w == s.w {
		if s.liveHashTick != t || !s.liveHashed {
			s.liveHashes = s.w.PageHashes(s.liveHashes)
			s.liveHashTick, s.liveHashed = t, true
		}
		return s.liveHashes, true
	}
	if !s.past.hashed {
		s.past.hashes = w.PageHashes(s.past.hashes)
		s.past.hashed = true
	}
	return s.past.hashes, true
}
