package replay

import (
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Sink receives what a replay of a match needs: it is the Record of a
// server's config and of a client's (rewind.ServerConfig.Record,
// rewind.ClientConfig.Record), so that one recorder (Recorder, which
// writes a replay file) serves either. A server gives it every tick it
// runs, from the match's start; a client the ticks it verified, from the
// world it started from (the match's start, or the world it loaded when
// it joined late; RecordStart comes again if it has to load a newer
// world). A server closes a Sink that is also an io.Closer when it says
// goodbye (the match is over). Both call it inside their Update.
type Sink interface {
	// RecordStart is called before the first tick recorded with the
	// replay's header (the match's side of it: fingerprint, layout, tick
	// rate, player slots, input size, recorder, the match settings the
	// welcomes carry), the world after tick and who is present then.
	// w and present are valid only during the call.
	RecordStart(h codec.ReplayHeader, tick uint32, w *world.World, present []bool)
	// RecordTick is called for every tick recorded, in order, with its
	// events, every slot's packed input, the world's full hash and the
	// world after it (nil from a client, whose world is ahead of the
	// verified tick). All are valid only during the call.
	RecordTick(tick uint32, events []game.Event, inputs []byte, hash uint64, w *world.World)
}

var _ Sink = (*Recorder)(nil)
