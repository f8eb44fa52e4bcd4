package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/world"
)

// fetch is the client's side of getting the server's world after one
// tick: on joining late (from the world Setup made), on falling behind
// (from the world the client has), and on a repair (from its own world at
// the tick that desynced). Flow:
//
//	server: page hashes of the world after tick (pushed after a
//	        welcome; asked for with PageHashRequest by a repair, or
//	        when they do not come)
//	client: PageRequest for the pages whose hashes differ from its own
//	        world's (or, past MaxPagesPerRequest, the whole world)
//	server: WorldChunks of the encoded pages; the client acknowledges
//	        them with WorldAck; every chunk is resent until acknowledged
//	client: applies them; the result must hash as the server's world
//	        did, or the whole world is asked for
//
// A world that fits one chunk the server sends whole at once, as the
// transfer named in the welcome.
type fetch struct {
	active    bool
	repair    bool   // a repair of the core's world at tick
	tick      uint32 // the world wanted is the server's after this tick
	welcomeID uint32 // a whole world the server may push comes as this transfer
	nextID    uint32 // the next transfer id to ask with

	hashes []uint64 // the server's page hashes
	have   []bool
	nhave  int

	asked  bool   // pages (or the whole world) asked for, as transfer xferID
	whole  bool   // the whole world asked for
	xferID uint32 // the transfer waited for
	fails  int

	blob      []byte
	gotChunk  []bool
	nchunks   uint32
	count     uint32
	total     uint32
	win       reliable.RecvWindow
	ackDue    bool
	lastReq   time.Time
	startedAt time.Time

	mine  []uint64
	diff  []int
	pages []uint32
}

// startFetch begins getting the server's world after tick into c.w.
func (c *Client[I]) startFetch(now time.Time, tick, welcomeID uint32, repair bool) {
	f := &c.fetch
	next := f.nextID
	*f = fetch{active: true, repair: repair, tick: tick, welcomeID: welcomeID, lastReq: now, startedAt: now,
		hashes: f.hashes[:0], have: f.have[:0], blob: f.blob[:0], gotChunk: f.gotChunk[:0], mine: f.mine, diff: f.diff, pages: f.pages}
	f.nextID = max(next, welcomeID) + 1
	if repair {
		c.askHashes(now)
	}
}

// retryInterval is how long the fetch waits for progress before asking
// again.
func (c *Client[I]) retryInterval() time.Duration {
	if c.cfg.FetchRetry > 0 {
		return c.cfg.FetchRetry
	}
	return min(max(2*c.clock.rtt, 100*time.Millisecond), time.Second)
}

// fetchTimers acknowledges chunks and asks again when nothing came for a
// while.
func (c *Client[I]) fetchTimers(now time.Time) error {
	f := &c.fetch
	if !f.active {
		return nil
	}
	if f.ackDue {
		f.ackDue = false
		m := codec.WorldAck{Tag: c.tag, Transfer: f.xferID, Ack: f.win.Ack()}
		if err := c.send(m.Append(c.sbuf[:0])); err != nil {
			return err
		}
	}
	if now.Sub(f.lastReq) < c.retryInterval() {
		return nil
	}
	f.lastReq = now
	switch {
	case f.asked:
		return c.sendPageRequest()
	default:
		return c.askHashes(now)
	}
}

// askHashes asks for the page hashes not yet held.
func (c *Client[I]) askHashes(now time.Time) error {
	f := &c.fetch
	f.lastReq = now
	first, count := uint32(0), uint32(c.w.PageCount())
	if len(f.have) > 0 {
		lo, hi := -1, -1
		for i, h := range f.have {
			if !h {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		if lo < 0 {
			return nil
		}
		first, count = uint32(lo), uint32(hi-lo+1)
	}
	c.st.FetchRequests++
	m := codec.PageHashRequest{Tag: c.tag, Tick: f.tick, First: first, Count: count}
	return c.send(m.Append(c.sbuf[:0]))
}

// onPageHashes takes page hashes of the world being fetched; with all of
// them, it asks for the pages its world lacks.
func (c *Client[I]) onPageHashes(now time.Time, b []byte) error {
	m, _, err := codec.ParsePageHashes(b)
	if err != nil {
		return err
	}
	f := &c.fetch
	if !f.active || f.asked || m.Tick != f.tick {
		return nil
	}
	n := c.w.PageCount()
	if int(m.Total) != n {
		// Another layout would have been refused: ask for the whole
		// world, which the decoder checks.
		return c.askWhole(now)
	}
	if len(f.have) != n {
		f.hashes = append(f.hashes[:0], make([]uint64, n)...)
		f.have = append(f.have[:0], make([]bool, n)...)
		f.nhave = 0
	}
	for i, h := range m.Hashes {
		p := int(m.First) + i
		f.hashes[p] = h
		if !f.have[p] {
			f.have[p] = true
			f.nhave++
		}
	}
	f.lastReq = now
	if f.nhave < n {
		return nil
	}
	f.mine = c.w.PageHashes(f.mine)
	f.diff = world.DiffPages(f.mine, f.hashes, f.diff)
	if len(f.diff) > codec.MaxPagesPerRequest {
		return c.askWhole(now)
	}
	if len(f.diff) == 0 {
		// Every page alike: page 0 brings the server's world hash,
		// which the decoder checks.
		f.diff = append(f.diff, 0)
	}
	f.pages = f.pages[:0]
	for _, p := range f.diff {
		f.pages = append(f.pages, uint32(p))
	}
	c.st.PagesAsked += uint64(len(f.pages))
	f.asked = true
	f.xferID = f.nextID
	f.nextID++
	f.win.Reset(0)
	f.nchunks = 0
	f.gotChunk = f.gotChunk[:0]
	return c.sendPageRequest()
}

// askWhole asks for the whole world.
func (c *Client[I]) askWhole(now time.Time) error {
	f := &c.fetch
	f.asked, f.whole = true, true
	f.xferID = f.nextID
	f.nextID++
	f.win.Reset(0)
	f.nchunks = 0
	f.gotChunk = f.gotChunk[:0]
	f.lastReq = now
	c.st.WholeWorlds++
	return c.sendPageRequest()
}

func (c *Client[I]) sendPageRequest() error {
	f := &c.fetch
	m := codec.PageRequest{Tag: c.tag, Tick: f.tick, Transfer: f.xferID, Whole: f.whole}
	if !f.whole {
		m.Pages = f.pages
	}
	c.st.FetchRequests++
	return c.send(m.Append(c.sbuf[:0]))
}

// onChunk takes a piece of the transfer waited for (or of the whole world
// the server pushed after its welcome).
func (c *Client[I]) onChunk(now time.Time, b []byte) error {
	m, _, err := codec.ParseWorldChunk(b)
	if err != nil {
		return err
	}
	f := &c.fetch
	if !f.active || m.Tick != f.tick {
		return nil
	}
	if !f.asked && m.Transfer == f.welcomeID {
		// The world the server sends right after a welcome: a delta
		// against the world at the match's start, or a small whole
		// world.
		f.asked, f.whole, f.xferID = true, false, m.Transfer
		f.win.Reset(0)
		f.nchunks = 0
		f.gotChunk = f.gotChunk[:0]
	}
	if m.Transfer != f.xferID {
		return nil
	}
	f.ackDue = true
	f.lastReq = now
	if len(f.gotChunk) == 0 {
		if int(m.Total) > c.w.Layout().MaxEncodingSize() || uint64(m.Count) > uint64(m.Total)+1 {
			return fmt.Errorf("client: world transfer of %d bytes in %d chunks: %w", m.Total, m.Count, codec.ErrTooLarge)
		}
		f.total, f.count = m.Total, m.Count
		f.blob = append(f.blob[:0], make([]byte, m.Total)...)
		f.gotChunk = append(f.gotChunk[:0], make([]bool, m.Count)...)
	}
	if f.total != m.Total || f.count != m.Count {
		return fmt.Errorf("client: world chunk of another size: %w", codec.ErrMalformed)
	}
	if f.gotChunk[m.Index] {
		return nil
	}
	f.gotChunk[m.Index] = true
	f.nchunks++
	copy(f.blob[m.Offset:], m.Data)
	f.win.Add(m.Index)
	c.st.ChunksIn++
	if f.nchunks < f.count {
		return nil
	}
	// Everything came: say so at once, so the server stops resending.
	f.win.AdvanceTo(f.count)
	ack := codec.WorldAck{Tag: c.tag, Transfer: f.xferID, Ack: f.win.Ack()}
	if err := c.send(ack.Append(c.sbuf[:0])); err != nil {
		return err
	}
	f.ackDue = false
	return c.applyFetched(now)
}

// applyFetched applies the transferred world or pages; on failure it asks
// for the whole world.
func (c *Client[I]) applyFetched(now time.Time) error {
	f := &c.fetch
	info, err := world.ReadEncodingInfo(f.blob)
	if err == nil {
		switch info.Kind {
		case "world":
			err = c.w.DecodeWorld(f.blob)
		case "pages":
			err = c.w.ApplyPages(f.blob)
		case "delta":
			err = c.w.DecodeDelta(f.blob, &c.join.setup)
		default:
			err = fmt.Errorf("client: a %s encoding: %w", info.Kind, world.ErrCorrupt)
		}
	}
	if err != nil {
		f.fails++
		c.st.FetchFailures++
		if errors.Is(err, world.ErrLayout) && f.whole {
			return fmt.Errorf("client: the server's world: %w", err)
		}
		f.gotChunk = f.gotChunk[:0]
		return c.askWhole(now)
	}
	f.active = false
	c.st.FetchBytes += uint64(len(f.blob))
	return c.fetched(now)
}
