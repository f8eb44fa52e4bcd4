package privatesim

import (
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// relayLog decodes, per player, every tick body the server sends it, in
// order, as a modified client that logs everything would, and looks at
// the other players' inputs: their private fields must be zero.
type relayLog struct {
	it       *inputs.Type[cards.Input]
	hashBits uint8
	players  map[transport.Addr]*relayed
	decoded  int
}

// relayed is one player's decoding state.
type relayed struct {
	dec     *codec.TickDecoder
	next    uint32
	pending map[uint32][]byte
	tk      codec.Tick
}

func newRelayLog(public bool) (*relayLog, error) {
	it, err := inputs.NewType[cards.Input]()
	if err != nil {
		return nil, err
	}
	bits := uint8(server.ScenesHashBits)
	if public {
		bits = 8 // the server's default without scenes
	}
	return &relayLog{it: it, hashBits: bits, players: map[transport.Addr]*relayed{}}, nil
}

// take decodes the tick bodies of datagram b sent to player id at to
// (every player joins before tick 1: its roster starts empty) and returns
// how many inputs of other players showed a private field.
func (l *relayLog) take(to transport.Addr, id game.PlayerID, b []byte) int {
	typ, _, err := codec.Peek(b)
	if err != nil || typ != codec.TypeServerTicks {
		return 0
	}
	r := l.players[to]
	if r == nil {
		r = &relayed{dec: codec.NewTickDecoder(l.it.Schema, l.hashBits), next: 1, pending: map[uint32][]byte{}}
		l.players[to] = r
	}
	m, _, err := codec.ParseServerTicks(b, r.next)
	if err != nil {
		return 0
	}
	for _, tb := range m.Ticks {
		if tb.Tick >= r.next {
			r.pending[tb.Tick] = append([]byte(nil), tb.Body...)
		}
	}
	seen := 0
	for body, ok := r.pending[r.next]; ok; body, ok = r.pending[r.next] {
		delete(r.pending, r.next)
		if r.dec.DecodeTick(body, &r.tk) != nil {
			return seen + 1 // a body this log cannot read counts against the test
		}
		l.decoded++
		r.next++
		var in cards.Input
		for p := range uint8(cards.MaxPlayers) {
			if raw := r.dec.Roster().Input(p); raw != nil && game.PlayerID(p) != id {
				l.it.Unpack(raw, &in)
				if in.Note != 0 {
					seen++
				}
			}
		}
	}
	return seen
}
