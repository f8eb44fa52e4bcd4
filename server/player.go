package server

import (
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
)

// player is one player's state on the server: its address (its identity),
// its input queue indexed by tick, what it has acknowledged, and how early
// its inputs arrive.
type player struct {
	id        game.PlayerID
	addr      transport.Addr
	tag       uint8
	cookie    [codec.CookieSize]byte
	present   bool // in the world (its join event has run)
	leaving   bool // leaves in the next tick
	joinTick  uint32
	lastHeard time.Time

	q    [][]byte // packed input for tick t at t&qmask
	qAt  []uint32 // the tick q[slot] holds (or whose late arrival was noted)
	last []byte   // the input applied in the last tick run
	late uint64

	// inWin: the input ticks held (or settled without them), acknowledged
	// in every ServerTicks.
	inWin codec.RecvWindow
	// res: which ticks were sent when, which the player acknowledged, and
	// which are due again.
	res      *codec.Resender
	lastSend time.Time

	// margins is a ring of how early (negative: how late) the player's
	// most recent inputs arrived, by first arrival.
	margins []time.Duration
	mpos    int
	mfill   int
}

func newPlayer(id game.PlayerID, addr transport.Addr, qslots, size, marginWindow int, rc codec.ResendConfig, now time.Time) *player {
	p := &player{
		id:        id,
		addr:      addr,
		lastHeard: now,
		q:         make([][]byte, qslots),
		qAt:       make([]uint32, qslots),
		last:      make([]byte, size),
		margins:   make([]time.Duration, marginWindow),
		res:       codec.NewResender(rc, 1),
	}
	for i := range p.q {
		p.q[i] = make([]byte, size)
	}
	return p
}

// noteMargin records how early an input arrived.
func (p *player) noteMargin(d time.Duration) {
	p.margins[p.mpos] = d
	p.mpos = (p.mpos + 1) % len(p.margins)
	p.mfill = min(p.mfill+1, len(p.margins))
}

// margin returns the smallest recent margin, or ok false when none was
// recorded yet.
func (p *player) margin() (d time.Duration, ok bool) {
	if p.mfill == 0 {
		return 0, false
	}
	d = p.margins[0]
	for _, m := range p.margins[:p.mfill] {
		d = min(d, m)
	}
	return d, true
}
