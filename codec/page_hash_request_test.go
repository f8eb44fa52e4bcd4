package codec

import "testing"

func TestPageHashRequest(t *testing.T) {
	for _, m := range []PageHashRequest{
		{Tag: 1, Tick: 5, First: 0, Count: 1},
		{Tag: 1, Tick: 1<<32 - 1, First: MaxPages - 10, Count: 10},
	} {
		checkMessage(t, &m, ParsePageHashRequest)
	}
	for _, m := range []PageHashRequest{{Count: 0}, {First: MaxPages - 1, Count: 2}, {Count: MaxPages + 1}} {
		mustFail(t, "range", m.Append(nil), ParsePageHashRequest, ErrMalformed)
	}
}
