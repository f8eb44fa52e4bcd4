package server

import (
	"math/bits"
	"slices"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
)

// player is one player's state on the server: its address (its identity),
// its input queue indexed by tick, what it has acknowledged, and how early
// its inputs arrive.
type player struct {
	id   game.PlayerID
	addr transport.Addr
	tag  uint8
	// cookies are the SHA-256 of the cookies its welcomes carried; only
	// the current welcome's cookie is kept itself (cookie, made for the
	// welcome cookieFor), to send again with a repeated welcome, and it
	// goes with the player (a reservation keeps the hashes).
	cookies   [][32]byte
	cookie    [codec.CookieSize]byte
	cookieFor uint32
	hasCookie bool
	// awaitUntil, if not zero, marks a player of a match this server took
	// over (resume.go) that has not come back yet: it stays in the world,
	// its input repeated, until then; digests are its cookies' digests.
	awaitUntil time.Time
	digests    [][8]byte
	welcomed   bool // heard from with its welcome's tag
	handedOver bool // a spectator sent the handover data (handover.go)
	// spectator: no slot, receive-only (spectator.go); delay: how long
	// after a tick ran it may be sent; specAt, if not zero, is when a
	// delayed spectator's welcome (at tick specFrom) is due.
	spectator bool
	delay     time.Duration
	specFrom  uint32
	specAt    time.Time
	present   bool // in the world (its join event has run)
	// byeAt is when the match's end said it goodbye (end.go; zero: not
	// yet); done: the end is done with it.
	byeAt     time.Time
	done      bool
	leaving   bool // leaves in the next tick
	joinTick  uint32
	lastHeard time.Time

	q    [][]byte // packed input for tick t at t&qmask
	qAt  []uint32 // the tick q[slot] holds (or whose late arrival was noted)
	last []byte   // the input applied in the last tick run
	late uint64
	// inputFrom is the first tick the player sent an input for (0: none
	// yet); StallWait does not wait for a player's input before it.
	inputFrom uint32
	// chat is its match messages (chat.go).
	chat chatState

	// inWin: the input ticks held (or settled without them), acknowledged
	// in every ServerTicks.
	inWin reliable.RecvWindow
	// res: which ticks were sent when, which the player acknowledged, and
	// which are due again.
	res      *reliable.Resender
	lastAck  reliable.Ack
	lastSend time.Time

	// The welcome: the tick whose world the player starts from, the id of
	// that world's whole-world transfer, the roster at that tick.
	welcomeTick   uint32
	welcomeID     uint32
	welcomeRoster []byte
	welcomeSent   time.Time
	// rebasing: a welcome moved the player in the match to a newer tick
	// (it fell behind, or came back from a new address); it is sent again
	// until the player acknowledges a tick after it.
	rebasing bool
	// xfer is the world transfer in progress, if any; xres is the
	// Resender of the player's transfers, reset for each.
	xfer *transfer
	xres *reliable.Resender
	// hashReqs and pageReqs are the player's buckets of page hash and
	// page requests (fetchAllowed).
	hashReqs, pageReqs fetchBucket
	// modBudget bounds the module chunks sent to the player (module.go).
	modBudget moduleBudget

	// margins is a ring of how early (negative: how late) the player's
	// most recent inputs arrived, by first arrival.
	margins []time.Duration
	mpos    int
	mfill   int

	adm peerAdmin // the operator's figures (admin.go)
}

func newPlayer(id game.PlayerID, addr transport.Addr, qslots, size, marginWindow int, res *reliable.Resender, now time.Time) *player {
	p := &player{
		id:        id,
		addr:      addr,
		lastHeard: now,
		q:         make([][]byte, qslots),
		qAt:       make([]uint32, qslots),
		last:      make([]byte, size),
		margins:   make([]time.Duration, marginWindow),
		res:       res,
		adm:       peerAdmin{since: now},
	}
	for i := range p.q {
		p.q[i] = make([]byte, size)
	}
	return p
}

// gaps adds to due (ascending, from the Resender) the ticks the player's
// latest ack shows missing below a tick it holds: those are lost, and are
// sent again with every datagram until acknowledged, not once per round
// trip, because a tick that is late stalls the player's verification and,
// a second later, its prediction. A tick body is a few bytes, so this costs
// little more than the loss itself. The result stays ascending.
func (p *player) gaps(now time.Time, dt time.Duration, due []uint32) []uint32 {
	a := p.lastAck
	if a.Mask == 0 {
		return due
	}
	n := len(due)
	top := a.Next + 64 - uint32(bits.LeadingZeros64(a.Mask)) // highest held
	for t := a.Next; int32(t-top) < 0; t++ {
		if a.Has(t) || p.res.Acked(t) || int32(t-p.res.Next()) >= 0 {
			continue
		}
		if slices.Contains(due[:n], t) {
			continue
		}
		due = append(due, t)
	}
	if len(due) > n && n > 0 {
		slices.Sort(due)
	}
	return due
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
