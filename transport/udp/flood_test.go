package udp

import (
	"bytes"
	"crypto/rand"
	"net/netip"
	"testing"
)

// TestUDPBogusAllocs hands the server's receive path (what its reader
// does with each datagram) every kind of bogus datagram a flood brings,
// from one source and from many ports, and checks that none allocates:
// random bytes, frames of each type for no session, sealed frames for no
// session, HELLOs without a token (answered with a RETRY), with a forged
// token, of another version, and forged or replayed frames of a session
// that exists.
func TestUDPBogusAllocs(t *testing.T) {
	s := udpListenTest(t, Config{Clock: newUDPFakeClock()})
	e := bytes.Repeat([]byte{0xEE}, noiseKeyLen)
	tok := bytes.Repeat([]byte{0xAB}, udpTokenLen)
	junk := make([]byte, 300)
	rand.Read(junk)
	peer := udpOpenAt(s, udpTestFrom("127.0.0.9", 4000), 77)
	if peer == nil {
		t.Fatal("no session opened")
	}
	replayed := peer.frame(udpData, []byte("taken once"))
	s.handle(replayed, peer.from, nil)
	forged := peer.frame(udpData, []byte("forged"))
	forged[len(forged)-1] ^= 1
	kinds := map[string][]byte{
		"random":          junk,
		"empty":           {},
		"oversize":        make([]byte, udpMaxFrame+1),
		"bad-type":        append([]byte{0x7F}, junk[:40]...),
		"short-sealed":    {udpSealedData, 1, 2, 3},
		"data-no-session": appendUDPShort(nil, udpData, 12345, []byte("x")),
		"sealed-no-sess":  udpTestSealed(udpSealedData, 12345, []byte("x")),
		"pong-to-server":  appendUDPShort(nil, udpPong, 7, nil),
		"welcome":         appendUDPWelcome(nil, 7, 9),
		"hello-no-token":  appendUDPHelloSealed(nil, 7, e, nil),
		"hello-forged":    appendUDPHelloSealed(nil, 7, e, tok),
		"hello-v1":        appendUDPHello(nil, 7, nil),
		"hello-v9":        append([]byte{udpHello, 9}, make([]byte, udpHelloSize)...),
		"short-hello":     appendUDPHelloSealed(nil, 7, e, nil)[:50],
		"forged-seal":     forged,
		"wrong-address":   peer.frame(udpData, []byte("from elsewhere")),
		"replayed":        replayed,
	}
	out := make([]byte, 0, 128)
	for name, b := range kinds {
		port := uint16(1000)
		allocs := testing.AllocsPerRun(200, func() {
			from := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), port) // a new source port each time
			if name == "forged-seal" || name == "replayed" {
				from = peer.from
			}
			port++
			out = s.handle(b, from, out)
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per datagram, want 0", name, allocs)
		}
	}
}
