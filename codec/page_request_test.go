package codec

import "testing"

func TestPageRequest(t *testing.T) {
	many := make([]uint32, MaxPagesPerRequest)
	for i := range many {
		many[i] = uint32(i * 3)
	}
	for _, m := range []PageRequest{
		{Tag: 1, Tick: 5, Transfer: 2, Pages: []uint32{0}},
		{Tag: 1, Tick: 5, Transfer: 2, Pages: []uint32{7, 8, 100, MaxPages - 1}},
		{Tag: 1, Tick: 5, Transfer: 2, Pages: many},
		{Tag: 3, Tick: 9, Transfer: 4, Whole: true},
	} {
		checkMessage(t, &m, ParsePageRequest)
	}
	mustFail(t, "none", (&PageRequest{}).Append(nil), ParsePageRequest, ErrMalformed)
	mustFail(t, "page range", (&PageRequest{Pages: []uint32{MaxPages}}).Append(nil), ParsePageRequest, ErrMalformed)
	mustFail(t, "whole with pages", (&PageRequest{Whole: true, Pages: []uint32{1}}).Append(nil), ParsePageRequest, ErrMalformed)
	mustFail(t, "too many", (&PageRequest{Pages: append(many, 1<<20)}).Append(nil), ParsePageRequest, ErrMalformed)
}
