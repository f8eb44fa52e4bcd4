package sand

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rewindnet/rewind"
)

// The game's match settings (rewind.Configurable): the host chooses the
// grid's side and the tick rate, and every joiner plays them.
var _ rewind.Configurable[Input] = (*Game)(nil)

// settingsVersion opens the settings' encoding.
const settingsVersion = 1

// TickRate returns the game's ticks per second: Rate, or 60 when Rate is
// 0 or outside 1..1000.
func (g *Game) TickRate() int {
	if g.Rate < 1 || g.Rate > 1000 {
		return rewind.DefaultTickRate
	}
	return g.Rate
}

// MatchSettings encodes the grid's side and the tick rate (as played:
// after defaults and clamping):
//
//	0   version (1)
//	1.. side, uvarint (8..MaxSide); tick rate, uvarint (1..1000)
func (g *Game) MatchSettings() []byte {
	b := []byte{settingsVersion}
	b = binary.AppendUvarint(b, uint64(g.side()))
	return binary.AppendUvarint(b, uint64(g.TickRate()))
}

// WithMatchSettings returns a new game of the settings b (MatchSettings's
// encoding, from the host). It refuses anything else with an error:
// another version, a side or rate out of range, a truncation, trailing
// bytes or a varint longer than it needs to be.
func (g *Game) WithMatchSettings(b []byte) (rewind.Game[Input], error) {
	if len(b) == 0 || b[0] != settingsVersion {
		return nil, errors.New("sand: settings of another version")
	}
	side, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return nil, errors.New("sand: settings: bad side")
	}
	rate, m := binary.Uvarint(b[1+n:])
	switch {
	case m <= 0:
		return nil, errors.New("sand: settings: bad tick rate")
	case 1+n+m != len(b):
		return nil, errors.New("sand: settings: trailing bytes")
	case side < 8 || side > MaxSide:
		return nil, fmt.Errorf("sand: settings: side %d out of 8..%d", side, MaxSide)
	case rate < 1 || rate > 1000:
		return nil, fmt.Errorf("sand: settings: tick rate %d out of 1..1000", rate)
	}
	g2 := &Game{Side: int(side), Rate: int(rate)}
	if string(g2.MatchSettings()) != string(b) {
		return nil, errors.New("sand: settings: not in the shortest encoding")
	}
	return g2, nil
}
