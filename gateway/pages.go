package gateway

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/world"
)

// A desync that carries pageHashes is answered with a pages message: the
// pages of the world at the newest verified tick whose hashes differ
// from the client's, each as its bytes up to its last byte that is not
// zero (the rest of the page is zeros). The client applies them to its
// world as it was after the desync's tick and has the world after
// snapshotTick (docs/gateway.md, "desync"). A bare desync is answered
// with a whole initial_state, as before pages.

// pagesState is what a pages message says.
type pagesState struct {
	tick, base uint32
	layoutHash uint64
	stateHash  uint64
	inputs     []command
	present    uint64
	w          *world.World
	diff       []int // the indexes of the pages to send, ascending
}

// appendPages appends a pages message.
func appendPages(dst []byte, sch *inputs.Schema, s *pagesState) []byte {
	dst = envelope(dst, "pages")
	dst = append(dst, `"snapshotTick":`...)
	dst = strconv.AppendUint(dst, uint64(s.tick), 10)
	dst = append(dst, `,"baseTickId":`...)
	dst = strconv.AppendUint(dst, uint64(s.base), 10)
	dst = append(dst, `,"layoutHash":`...)
	dst = appendHex(dst, s.layoutHash)
	dst = append(dst, `,"stateHash":`...)
	dst = appendHex(dst, s.stateHash)
	dst = appendPlayers(dst, sch, s.inputs, s.present)
	dst = append(dst, `,"pages":[`...)
	for i, p := range s.diff {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"index":`...)
		dst = strconv.AppendInt(dst, int64(p), 10)
		dst = append(dst, `,"bytes":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, trimZeros(s.w.Page(p)))
		dst = append(dst, `"}`...)
	}
	return append(dst, "]}}"...)
}

// trimZeros returns b up to its last byte that is not zero.
func trimZeros(b []byte) []byte {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return b[:n]
}

// repairMessage returns the answer to the player's desync at the
// verified tick: its pages that differ from the client's page hashes, or
// (a bare desync) a whole initial_state; and whether it is pages.
func (p *player[I]) repairMessage() ([]byte, bool) {
	gw := p.gw
	w := p.c.World()
	if p.theirs == nil || !p.sent || !p.checkpoint {
		s := initialState{tick: p.stepped, player: p.me, rate: gw.rate, delay: gw.cfg.InputDelay, compat: gw.compat,
			layoutHash: gw.layout, stateHash: w.Hash(), state: w.AppendJSON(nil), world: w.AppendWorld(nil), token: p.token}
		s.inputs, s.present = p.currentInputs(), p.present
		return appendInitial(nil, gw.it.Schema, &s), false
	}
	p.mine = w.PageHashes(p.mine)
	p.diff = world.DiffPages(p.theirs, p.mine, p.diff)
	s := pagesState{tick: p.stepped, base: p.theirsTick, layoutHash: gw.layout, stateHash: w.Hash(),
		inputs: p.currentInputs(), present: p.present, w: w, diff: p.diff}
	return appendPages(nil, gw.it.Schema, &s), true
}

// paceRepair sets when the player's next desync may be answered, after
// an answer of n bytes now: the gap doubles from CheckpointEvery up to
// CheckpointMax (and starts again after a quiet CheckpointMax), and is
// at least n / RepairRate, so that whole worlds cost a storm no more
// than RepairRate bytes a second.
func (p *player[I]) paceRepair(now time.Time, n int) {
	cfg := &p.gw.cfg
	if p.ckLast.IsZero() || now.Sub(p.ckLast) >= p.ckWait+cfg.CheckpointMax {
		p.ckGap = cfg.CheckpointEvery // quiet for CheckpointMax: start again
	} else {
		p.ckGap = min(2*p.ckGap, cfg.CheckpointMax)
	}
	p.ckWait = max(p.ckGap, time.Duration(float64(n)/float64(cfg.RepairRate)*float64(time.Second)))
	p.ckLast = now
}
