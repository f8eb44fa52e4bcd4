package codec

import "testing"

func TestPageHashes(t *testing.T) {
	many := make([]uint64, MaxHashesPerMessage)
	for i := range many {
		many[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for _, m := range []PageHashes{
		{Tag: 1, Tick: 5, First: 0, Total: 1, Hashes: []uint64{42}},
		{Tag: 1, Tick: 1<<32 - 1, First: MaxPages - uint32(len(many)), Total: MaxPages, Hashes: many},
	} {
		checkMessage(t, &m, ParsePageHashes)
	}
	for _, m := range []PageHashes{{Total: 1}, {First: 1, Total: 1, Hashes: []uint64{1}}, {Total: MaxPages + 1, Hashes: []uint64{1}}} {
		mustFail(t, "range", m.Append(nil), ParsePageHashes, ErrMalformed)
	}
}
