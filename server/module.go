package server

import (
	"crypto/sha256"
	"math/bits"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

// The module a match's players fetch (a WebAssembly game: its game is
// game.ModuleSource). A welcomed player or spectator asks for pieces of
// it with codec.ModuleRequest naming its SHA-256; the server answers
// each piece asked with a codec.ModuleChunk, at most moduleBurst at once
// and moduleRate a second per connection (the player asks again for what
// did not come: the player paces the transfer, the server only bounds
// it).
const (
	moduleRate  = 4096 // chunks a second per connection (4.7 MB/s)
	moduleBurst = 128  // chunks at once per connection
)

// moduleSource is the module the server sends, if its game has one.
type moduleSource struct {
	bytes []byte
	sum   [32]byte
	total uint32
}

// initModule takes the game's module, if it has one (game.ModuleSource).
func (s *Server[I]) initModule() {
	ms, ok := game.As[game.ModuleSource](s.g)
	if !ok {
		return
	}
	b := ms.ModuleBytes()
	if len(b) == 0 || len(b) > codec.MaxModuleBytes {
		return // nothing the wire carries: players that need it time out
	}
	s.mod = moduleSource{bytes: b, sum: sha256.Sum256(b), total: uint32(len(b))}
}

// moduleBudget is a connection's allowance of module chunks.
type moduleBudget struct {
	tokens float64
	at     time.Time
}

// take returns how many of n chunks the budget allows now, and spends
// them.
func (m *moduleBudget) take(now time.Time, n int) int {
	if m.at.IsZero() {
		m.tokens = moduleBurst
	} else if d := now.Sub(m.at); d > 0 {
		m.tokens = min(moduleBurst, m.tokens+d.Seconds()*moduleRate)
	}
	m.at = now
	n = min(n, int(m.tokens))
	m.tokens -= float64(n)
	return n
}

// onModuleRequest answers a request for pieces of the module: the ones
// asked that exist, as many as p's budget allows. A request for another
// module (or in a match without one) is dropped.
func (s *Server[I]) onModuleRequest(now time.Time, p *player, b []byte) error {
	m, _, err := codec.ParseModuleRequest(b)
	if err != nil {
		return err
	}
	s.stats.ModuleRequests++
	if s.mod.total == 0 || m.Sum != s.mod.sum {
		s.stats.ModuleRefused++
		return nil
	}
	count := codec.ModuleChunks(s.mod.total)
	mask := m.Mask
	if m.First >= count {
		return nil
	}
	if left := count - m.First; left < 64 {
		mask &= 1<<left - 1
	}
	allowed := p.modBudget.take(now, bits.OnesCount64(mask))
	for ; mask != 0 && allowed > 0; allowed-- {
		i := m.First + uint32(bits.TrailingZeros64(mask))
		mask &= mask - 1
		off := int(i) * codec.ModuleChunkData
		c := codec.ModuleChunk{Tag: p.tag, Index: i, Total: s.mod.total,
			Data: s.mod.bytes[off : off+codec.ModuleChunkLen(i, s.mod.total)]}
		s.stats.ModuleChunksOut++
		if err := s.send(p.addr, c.Append(s.wire.sbuf[:0])); err != nil {
			return err
		}
	}
	if mask != 0 {
		s.stats.ModuleLimited++
	}
	return nil
}
