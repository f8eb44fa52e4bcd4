package codec

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/transport"
)

func testHandover() Handover {
	d := func(s string) [HandoverDigestSize]byte {
		sum := sha256.Sum256([]byte(s))
		return CookieDigest(&sum)
	}
	return Handover{
		Tag: 5, Version: 300, Open: true, HasOwn: true, Own: 2, TickRate: 60,
		Code: "ABC234", Key: strings.Repeat("k", 32),
		Players: []HandoverPlayer{
			{ID: 0, Digests: [][HandoverDigestSize]byte{d("a")}},
			{ID: 2, Digests: [][HandoverDigestSize]byte{d("b"), d("c")}},
			{ID: 63, Digests: [][HandoverDigestSize]byte{d("d")}},
		},
	}
}

func TestHandover(t *testing.T) {
	for _, m := range []Handover{
		testHandover(),
		{Tag: 1, TickRate: 30},
		{Tag: 1, Version: 1 << 31, TickRate: MaxHandoverTickRate, Code: strings.Repeat("C", MaxHandoverCode), Key: strings.Repeat("K", MaxHandoverKey),
			Players: []HandoverPlayer{{ID: 7, Digests: make([][HandoverDigestSize]byte, MaxHandoverDigests)}}},
	} {
		b := checkMessage(t, &m, ParseHandover)
		bad := append([]byte(nil), b...)
		bad[0] |= 4
		mustFail(t, "flags", bad, ParseHandover, ErrMalformed)
	}
}

// TestHandoverGolden pins the layout.
func TestHandoverGolden(t *testing.T) {
	m := Handover{Tag: 9, Version: 2, Open: true, HasOwn: true, Own: 1, TickRate: 60, Code: "AB", Key: "k",
		Players: []HandoverPlayer{{ID: 1, Digests: [][HandoverDigestSize]byte{{1, 2, 3, 4, 5, 6, 7, 8}}}}}
	const want = "b3" + "09" + "02" + "01" + "3c" + "02" + "4142" + "01" + "6b" +
		"0200000000000000" + "01" + "0102030405060708"
	if got := hex.EncodeToString(m.Append(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestHandoverMalformed(t *testing.T) {
	m := Handover{Tag: 1, HasOwn: true, Own: 0, TickRate: 60, Code: "AB", Key: "k",
		Players: []HandoverPlayer{{ID: 0, Digests: [][HandoverDigestSize]byte{{}}}}}
	b := m.Append(nil)
	// b: b2 01 00 00 3c 02 'A' 'B' 01 'k' mask(8) count digest(8)
	set := func(i int, v byte) []byte {
		c := append([]byte(nil), b...)
		c[i] = v
		return c
	}
	mustFail(t, "own out of range", set(3, 64), ParseHandover, ErrMalformed)
	mustFail(t, "own not in the match", set(3, 1), ParseHandover, ErrMalformed)
	mustFail(t, "tick rate 0", set(4, 0), ParseHandover, ErrMalformed)
	mustFail(t, "code too long", set(5, MaxHandoverCode+1), ParseHandover, ErrMalformed)
	mustFail(t, "no digests", set(18, 0), ParseHandover, ErrMalformed)
	mustFail(t, "too many digests", set(18, MaxHandoverDigests+1), ParseHandover, ErrMalformed)
	long := Handover{TickRate: 60, Key: strings.Repeat("k", MaxHandoverKey)}
	lb := long.Append(nil)
	lb[5] = MaxHandoverKey + 1
	mustFail(t, "key too long", lb, ParseHandover, ErrMalformed)
	big := Handover{TickRate: 2000}
	mustFail(t, "tick rate too high", big.Append(nil), ParseHandover, ErrMalformed)
}

// TestHandoverFit checks that the largest handover fits a datagram with
// the digests HandoverFit allows.
func TestHandoverFit(t *testing.T) {
	for _, n := range []int{1, 4, 16, 32, 64} {
		m := Handover{Version: 1 << 31, HasOwn: true, TickRate: MaxHandoverTickRate,
			Code: strings.Repeat("C", MaxHandoverCode), Key: strings.Repeat("K", MaxHandoverKey)}
		for id := range n {
			m.Players = append(m.Players, HandoverPlayer{ID: uint8(id), Digests: make([][HandoverDigestSize]byte, 1)})
		}
		fixed := m.Length() - n*HandoverDigestSize
		k := HandoverFit(fixed, n)
		for i := range m.Players {
			m.Players[i].Digests = make([][HandoverDigestSize]byte, k)
		}
		if m.Length() > transport.MaxDatagram {
			t.Fatalf("%d players, %d digests: %d bytes", n, k, m.Length())
		}
		if n <= 16 && k != MaxHandoverDigests {
			t.Fatalf("%d players: only %d digests fit", n, k)
		}
		t.Logf("%d players: %d digests each, %d bytes", n, k, m.Length())
	}
}
