package server

import "github.com/rewindnet/rewind/codec/reliable"

// maxSpareResenders bounds the Resenders a server keeps for reuse: a
// reliable.Resender is about 57 KB, and every join (and rejoin, welcome
// again, world transfer) needs one; a player leaving leaves up to two
// (its ticks' and its transfers'), which the next one takes, so that a
// match whose players come and go allocates none after its first
// players (docs/benchmarks.md, Match: join/leave).
const maxSpareResenders = 8

// newResender returns a Resender as reliable.NewResender(rc, first)
// would: a spare one reset, else a new one.
func (s *Server[I]) newResender(rc reliable.ResendConfig, first uint32) *reliable.Resender {
	n := len(s.spares)
	if n == 0 {
		return reliable.NewResender(rc, first)
	}
	r := s.spares[n-1]
	s.spares[n-1] = nil
	s.spares = s.spares[:n-1]
	r.Reset(rc, first)
	return r
}

// resetResender returns r reset to (rc, first), or a Resender from
// newResender when r is nil. Whoever used r before must be done with it.
func (s *Server[I]) resetResender(r *reliable.Resender, rc reliable.ResendConfig, first uint32) *reliable.Resender {
	if r == nil {
		return s.newResender(rc, first)
	}
	r.Reset(rc, first)
	return r
}

// freeResenders keeps p's Resenders for the next players, p being gone:
// the server holds it nowhere any more (not in players, specs or byAddr),
// so nothing reads them again through p, whose fields are cleared.
func (s *Server[I]) freeResenders(p *player) {
	for _, r := range [...]*reliable.Resender{p.res, p.xres} {
		if r != nil && len(s.spares) < maxSpareResenders {
			s.spares = append(s.spares, r)
		}
	}
	p.res, p.xres, p.xfer = nil, nil, nil
}
