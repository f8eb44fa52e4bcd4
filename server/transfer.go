package server

import (
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
)

// chunkData is the most world bytes one WorldChunk carries.
const chunkData = codec.MaxChunkData

// transfer is a world transfer to one player: a blob (a world encoding)
// cut into chunks, each resent until the player's WorldAck covers it.
type transfer struct {
	id    uint32
	tick  uint32
	blob  []byte
	count uint32
	res   *reliable.Resender
	// sentAt is when each chunk was last sent: one unacknowledged for
	// 5/4 of the round trip (Resender's RTO is more cautious: a world
	// arrives in a handful of round trips, so a loss would cost several).
	sentAt []time.Time
}

// startTransfer begins sending blob (an encoding of the world after tick)
// to p as transfer id, replacing any transfer in progress.
func (s *Server[I]) startTransfer(now time.Time, p *player, id, tick uint32, blob []byte) {
	n := uint32((len(blob) + chunkData - 1) / chunkData)
	if n == 0 {
		n = 1
	}
	rc := s.cfg.Resend
	rc.Selective = true
	if p.res != nil && rc.InitialRTT == 0 {
		rc.InitialRTT = p.res.RTT()
	}
	p.xres = s.resetResender(p.xres, rc, 0) // the last transfer's, if any: it is replaced
	p.xfer = &transfer{id: id, tick: tick, blob: blob, count: n, res: p.xres,
		sentAt: make([]time.Time, n)}
	s.stats.Transfers++
	s.stats.TransferBytes += uint64(len(blob))
	s.sendChunks(now, p)
}

// onWorldAck takes a player's ack of chunks.
func (s *Server[I]) onWorldAck(now time.Time, p *player, b []byte) error {
	m, _, err := codec.ParseWorldAck(b)
	if err != nil {
		return err
	}
	x := p.xfer
	if x == nil || m.Transfer != x.id {
		return nil // an old transfer's ack
	}
	x.res.OnAck(m.Ack, now)
	if x.res.Base() >= x.count {
		p.xfer = nil // done
		return nil
	}
	s.sendChunks(now, p)
	return nil
}

// sendChunks sends the chunks of p's transfer that are due again, then new
// ones while fewer than ChunkWindow are in flight, at most ChunksPerUpdate.
func (s *Server[I]) sendChunks(now time.Time, p *player) {
	x := p.xfer
	if x == nil {
		return
	}
	sent := 0
	rto := max(x.res.RTT()+x.res.RTT()/4, 2*s.dt)
	for i := x.res.Base(); i != x.res.Next() && sent < s.cfg.ChunksPerUpdate; i++ {
		if !x.res.Acked(i) && now.Sub(x.sentAt[i]) >= rto {
			s.sendChunk(now, p, i)
			sent++
		}
	}
	for sent < s.cfg.ChunksPerUpdate {
		i := x.res.Next()
		if i >= x.count || int(i-x.res.Base()) >= s.cfg.ChunkWindow {
			return
		}
		s.sendChunk(now, p, i)
		sent++
	}
}

func (s *Server[I]) sendChunk(now time.Time, p *player, i uint32) {
	x := p.xfer
	off := int(i) * chunkData
	end := min(off+chunkData, len(x.blob))
	m := codec.WorldChunk{Tag: p.tag, Transfer: x.id, Tick: x.tick, Index: i, Count: x.count,
		Offset: uint32(off), Total: uint32(len(x.blob)), Data: x.blob[off:end]}
	x.res.Sent(i, now)
	x.sentAt[i] = now
	s.stats.ChunksOut++
	_ = s.send(p.addr, m.Append(s.wire.sbuf[:0]))
}

// onPageHashRequest answers with the page hashes of the world after the
// request's tick, if that tick is within reach; otherwise the player is
// given a newer tick's world (rebase).
func (s *Server[I]) onPageHashRequest(now time.Time, p *player, b []byte) error {
	m, _, err := codec.ParsePageHashRequest(b)
	if err != nil {
		return err
	}
	if !s.fetchAllowed(now, &p.hashReqs) {
		return nil
	}
	s.stats.PageHashRequests++
	p.adm.repairs++
	hs, ok := s.pageHashesFor(m.Tick, int(p.id))
	if !ok {
		s.rebase(now, p)
		return nil
	}
	s.sendPageHashes(p, m.Tick, hs, m.First, m.Count)
	return nil
}

// fetchBucket is a player's token bucket of one kind of request.
type fetchBucket struct {
	tokens float64
	at     time.Time
}

// fetchAllowed limits a player's requests of one kind (page hashes, or
// pages) that make the server rebuild or encode a world to FetchBurst at
// once, then one per FetchInterval (b is the kind's bucket): a client
// asks again after twice the round trip at the soonest, and a flood of
// requests, each for another past tick, must not cost the server a
// replay and an encoding each (issue 43).
func (s *Server[I]) fetchAllowed(now time.Time, b *fetchBucket) bool {
	burst := float64(s.cfg.FetchBurst)
	if b.at.IsZero() {
		b.tokens = burst
	} else if d := now.Sub(b.at); d > 0 {
		b.tokens = min(burst, b.tokens+d.Seconds()/s.cfg.FetchInterval.Seconds())
	}
	b.at = now
	if b.tokens < 1 {
		s.stats.FetchesLimited++
		return false
	}
	b.tokens--
	return true
}

// sendPageHashes sends hashes[first:first+count] of the world after tick
// in as many datagrams as they need.
func (s *Server[I]) sendPageHashes(p *player, tick uint32, hs []uint64, first, count uint32) {
	total := uint32(len(hs))
	if first >= total {
		return
	}
	end := min(uint64(first)+uint64(count), uint64(total))
	for f := uint64(first); f < end; f += codec.MaxHashesPerMessage {
		e := min(f+codec.MaxHashesPerMessage, end)
		m := codec.PageHashes{Tag: p.tag, Tick: tick, First: uint32(f), Total: total, Hashes: hs[f:e]}
		_ = s.send(p.addr, m.Append(s.wire.sbuf[:0]))
	}
}

// onPageRequest starts a transfer of the requested pages (or the whole
// world) of the world after the request's tick.
func (s *Server[I]) onPageRequest(now time.Time, p *player, b []byte) error {
	m, _, err := codec.ParsePageRequest(b)
	if err != nil {
		return err
	}
	if x := p.xfer; x != nil && x.id == m.Transfer && x.tick == m.Tick {
		return nil // a repeated request: the transfer is on its way
	}
	if !s.fetchAllowed(now, &p.pageReqs) {
		return nil
	}
	w, ok := s.worldAt(m.Tick)
	if !ok {
		s.rebase(now, p)
		return nil
	}
	w = s.viewWorld(w, int(p.id))
	var blob []byte
	if m.Whole {
		blob = w.AppendWorld(nil)
		s.stats.WholeWorlds++
	} else {
		pages := make([]int, 0, len(m.Pages))
		for _, pg := range m.Pages {
			if int(pg) >= w.PageCount() {
				return codec.ErrMalformed
			}
			pages = append(pages, int(pg))
		}
		if blob, err = w.AppendPageList(nil, pages); err != nil {
			return err
		}
		s.stats.PagesSent += uint64(len(pages))
	}
	s.startTransfer(now, p, m.Transfer, m.Tick, blob)
	return nil
}

// pushWorld starts p on the world after the last tick run, right after its
// welcome. A new player (fresh: it holds the world Setup made, as every
// machine does) gets at once, as the transfer p.welcomeID, the world as a
// delta against the world at the match's start: only the pages that
// changed since travel, XORed with the start's, and the header's base hash
// tells the client whether its start world is the server's (if not it asks
// for the whole world). A player whose world the server does not know
// (fallen behind, back from a new address) gets the page hashes, from
// which it asks for the pages its world lacks — unless the whole world
// fits one chunk, which then goes at once.
func (s *Server[I]) pushWorld(now time.Time, p *player, fresh bool) {
	if s.tick == 0 {
		return // the world every client sets up itself
	}
	w := s.viewWorld(s.w, int(p.id))
	if fresh {
		blob, err := w.AppendDelta(nil, s.viewSetup(s.w.ViewOf(int(p.id))))
		if err == nil {
			s.startTransfer(now, p, p.welcomeID, s.tick, blob)
			return
		}
	}
	if w.UsedBytes() <= smallWorld {
		whole := w.AppendWorld(nil)
		if len(whole) <= chunkData {
			s.stats.WholeWorlds++
			s.startTransfer(now, p, p.welcomeID, s.tick, whole)
			return
		}
	}
	hs, _ := s.pageHashesFor(s.tick, int(p.id))
	s.sendPageHashes(p, s.tick, hs, 0, uint32(len(hs)))
}

// smallWorld is the size in use under which pushWorld tries the whole
// world in one chunk.
const smallWorld = 64 << 10
