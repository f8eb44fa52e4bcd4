package codec

import (
	"testing"

	"github.com/rewindnet/rewind/codec/reliable"
)

func TestWorldAck(t *testing.T) {
	for _, m := range []WorldAck{
		{Tag: 1, Transfer: 0, Ack: reliable.Ack{}},
		{Tag: 9, Transfer: 77, Ack: reliable.Ack{Next: 1000, Mask: 0x8000000000000001}},
	} {
		checkMessage(t, &m, ParseWorldAck)
	}
}
