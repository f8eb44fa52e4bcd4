package udp

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/rewindnet/rewind/transport"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoiseCacophonyNX checks the handshake against the Cacophony test
// vector of Noise_NX_25519_ChaChaPoly_SHA256 (as published with the snow
// and cacophony implementations): both messages byte for byte, the
// handshake hash, and the first transport messages under Split's keys.
func TestNoiseCacophonyNX(t *testing.T) {
	prologue := unhex(t, "4a6f686e2047616c74")
	ie, err := ecdh.X25519().NewPrivateKey(unhex(t, "893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := NewStaticKey(unhex(t, "4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893"))
	if err != nil {
		t.Fatal(err)
	}
	re, err := ecdh.X25519().NewPrivateKey(unhex(t, "bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b"))
	if err != nil {
		t.Fatal(err)
	}
	ini := newNoiseInitiator(prologue, ie)
	msg1 := ini.writeMessage1(nil, unhex(t, "4c756477696720766f6e204d69736573"))
	if want := unhex(t, "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c79444c756477696720766f6e204d69736573"); !bytes.Equal(msg1, want) {
		t.Fatalf("message 1 %x, want %x", msg1, want)
	}
	payload2 := unhex(t, "4d757272617920526f746862617264")
	msg2, rsend, rrecv, err := noiseRespond(prologue, rs, re, msg1, nil, payload2)
	if err != nil {
		t.Fatal(err)
	}
	want2 := unhex(t, "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f1448088430da8899553a0e2d18bb3bcdf632634e25dd60e400ecc50c371de2cd83257c7636c5913e463b6bd3f3efe3eb1c9e92f10dde5d45c312e42ff98cfadd9f9e92b01ec7604e5d2150eef5db0aed53ab203")
	if !bytes.Equal(msg2, want2) {
		t.Fatalf("message 2 %x, want %x", msg2, want2)
	}
	gotS, p, isend, irecv, err := ini.readMessage2(nil, msg2)
	if err != nil || !bytes.Equal(p, payload2) || gotS != rs.Public() {
		t.Fatalf("initiator read: key %s payload %q err %v", gotS, p, err)
	}
	if want := unhex(t, "6959d38aed4b70824a50c722b47c07e00e88eb3eb14f351c11cbee4f56dac33b"); !bytes.Equal(ini.st.h[:], want) {
		t.Fatalf("handshake hash %x, want %x", ini.st.h, want)
	}
	if isend != rrecv || irecv != rsend {
		t.Fatal("the two sides split different keys")
	}
	// Transport messages 3 (initiator) and 4 (responder), nonce 0, no AD.
	for _, m := range []struct {
		key     [32]byte
		pt, ct  string
		initSay bool
	}{
		{isend, "462e20412e20486179656b", "deefd230bea16077f1ceecaad5e4284c3bf2c564e20f694a61b9d4", true},
		{rsend, "4361726c204d656e676572", "6bfa60de93cf432f460dcc86cf66716c22ffb502125832433808c0", false},
	} {
		a, _ := chacha20poly1305.New(m.key[:])
		if got := a.Seal(nil, noiseNonce(0), unhex(t, m.pt), nil); !bytes.Equal(got, unhex(t, m.ct)) {
			t.Fatalf("transport message (initiator %v) %x, want %s", m.initSay, got, m.ct)
		}
	}
}

// TestNoiseTampered: any changed byte of the server's message, or a
// message made with another client's key, fails the client's read.
func TestNoiseTampered(t *testing.T) {
	static, _ := GenerateStaticKey()
	e, _ := ecdh.X25519().GenerateKey(rand.Reader)
	se, _ := ecdh.X25519().GenerateKey(rand.Reader)
	ini := newNoiseInitiator(udpPrologue(7), e)
	msg1 := ini.writeMessage1(nil, nil)
	msg2, _, _, err := noiseRespond(udpPrologue(7), static, se, msg1, nil, []byte("12345678"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range msg2 {
		bad := bytes.Clone(msg2)
		bad[i] ^= 0x01
		cp := *ini
		if _, _, _, _, err := cp.readMessage2(nil, bad); !errors.Is(err, ErrMalformed) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	// Another prologue (another connection id) does not open either.
	other := newNoiseInitiator(udpPrologue(8), e)
	other.writeMessage1(nil, nil)
	if _, _, _, _, err := other.readMessage2(nil, msg2); !errors.Is(err, ErrMalformed) {
		t.Fatalf("another prologue: %v", err)
	}
	// A low-order client key is refused by the server.
	if _, _, _, err := noiseRespond(udpPrologue(7), static, se, make([]byte, 32), nil, nil); !errors.Is(err, ErrMalformed) {
		t.Fatalf("zero key: %v", err)
	}
	cp := *ini
	if _, _, _, _, err := cp.readMessage2(nil, msg2); err != nil {
		t.Fatalf("genuine message: %v", err)
	}
}

func TestPublicKeyText(t *testing.T) {
	k, err := GenerateStaticKey()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePublicKey(k.Public().String())
	if err != nil || p != k.Public() || len(p.String()) != 64 {
		t.Fatalf("round trip %s: %v", p, err)
	}
	again, err := NewStaticKey(k.Bytes())
	if err != nil || again.Public() != k.Public() {
		t.Fatalf("private key round trip: %v", err)
	}
	for _, bad := range []string{"", "abc", k.Public().String()[:62], k.Public().String() + "00", "zz" + k.Public().String()[2:], PublicKey{}.String()} {
		if _, err := ParsePublicKey(bad); !errors.Is(err, transport.ErrBadConfig) {
			t.Fatalf("ParsePublicKey(%q): %v", bad, err)
		}
	}
	if _, err := NewStaticKey([]byte{1, 2}); !errors.Is(err, transport.ErrBadConfig) {
		t.Fatalf("short private key: %v", err)
	}
}

// FuzzNoiseMessage2 feeds the client's handshake read arbitrary server
// messages: it must fail cleanly, and a message that opens must come
// from the server's key (it cannot, without it).
func FuzzNoiseMessage2(f *testing.F) {
	static, _ := GenerateStaticKey()
	e, _ := ecdh.X25519().GenerateKey(rand.Reader)
	se, _ := ecdh.X25519().GenerateKey(rand.Reader)
	ini := newNoiseInitiator(udpPrologue(7), e)
	msg1 := ini.writeMessage1(nil, nil)
	msg2, _, _, _ := noiseRespond(udpPrologue(7), static, se, msg1, nil, []byte("12345678"))
	f.Add(msg2)
	f.Add(msg2[:40])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		cp := *ini
		rs, _, _, _, err := cp.readMessage2(nil, b)
		if err == nil && !bytes.Equal(b, msg2) {
			t.Fatalf("a message other than the server's opened (key %s)", rs)
		}
	})
}

// FuzzNoiseMessage1 feeds the server's handshake arbitrary client
// messages: any 32 bytes or more give an answer or a clean error.
func FuzzNoiseMessage1(f *testing.F) {
	static, _ := GenerateStaticKey()
	se, _ := ecdh.X25519().GenerateKey(rand.Reader)
	e, _ := ecdh.X25519().GenerateKey(rand.Reader)
	f.Add(e.PublicKey().Bytes())
	f.Add(make([]byte, 32))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _, _, err := noiseRespond(udpPrologue(7), static, se, b, nil, []byte("12345678"))
		if err == nil && len(out) != noiseMsg2Len {
			t.Fatalf("message of %d bytes", len(out))
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v", err)
		}
	})
}
