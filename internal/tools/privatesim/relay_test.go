package privatesim

import (
	"testing"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/server"
)

// TestRelayLogSeesPrivateInputs checks that the modified client's log
// finds a private field when one is relayed (else private_inputs_seen=0
// would prove nothing): ticks encoded with another player's note in the
// clear are counted, the same ticks with the note hidden are not.
func TestRelayLogSeesPrivateInputs(t *testing.T) {
	for _, hide := range []bool{false, true} {
		l, err := newRelayLog(false)
		if err != nil {
			t.Fatal(err)
		}
		enc := codec.NewTickEncoder(l.it.Schema, server.ScenesHashBits)
		seen := 0
		for tick := uint32(1); tick <= 3; tick++ {
			if tick == 1 {
				_ = enc.Join(0)
				_ = enc.Join(1)
			}
			in := l.it.Pack(make([]byte, l.it.Size()), &cards.Input{Action: cards.Draw, Seq: uint8(tick), Note: cards.BotNote(1, tick)})
			if hide {
				l.it.Schema.HidePrivate(in)
			}
			if err := enc.SetInput(1, in); err != nil {
				t.Fatal(err)
			}
			body := enc.AppendTick(nil, 0)
			m := codec.ServerTicks{First: tick, Ticks: []codec.TickBody{{Tick: tick, Body: body}}}
			seen += l.take("c0", 0, m.Append(nil))
		}
		if l.decoded != 3 || (seen == 0) != hide {
			t.Fatalf("hide %v: %d ticks decoded, %d private inputs seen", hide, l.decoded, seen)
		}
	}
}
