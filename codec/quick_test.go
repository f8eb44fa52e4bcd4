package codec

import "testing"

type quickIn struct {
	F int8
	S int8
	A int16
	B uint8
}

func TestQuickRoundTrip(t *testing.T) {
	it, err := RegisterInput[quickIn]()
	if err != nil {
		t.Fatal(err)
	}
	seq := []quickIn{{}, {25, 0, 256, 0}, {25, 0, 256, 0}, {50, -24, -512, 1}, {0, 0, 0, 0}, {-128, 127, -32768, 255}, {127, -128, 32767, 0}}
	var enc, dec InputState
	it.ResetState(&enc, nil)
	it.ResetState(&dec, nil)
	var w BitWriter
	buf := make([]byte, it.Size())
	for _, v := range seq {
		it.EncodeDelta(&w, &enc, it.Pack(buf, &v))
	}
	b := w.Bytes()
	var r BitReader
	r.Reset(b)
	for i, v := range seq {
		if err := it.DecodeDelta(&r, &dec); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		var got quickIn
		it.Unpack(dec.Input(), &got)
		if got != v {
			t.Fatalf("%d: got %+v want %+v", i, got, v)
		}
	}
	t.Logf("%d bytes", len(b))
}
