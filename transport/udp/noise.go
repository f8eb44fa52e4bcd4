package udp

import (
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/rewindnet/rewind/transport"
)

// The sealed UDP handshake is Noise_NX_25519_ChaChaPoly_SHA256 (the Noise
// Protocol Framework, revision 34), carried in the HELLO and WELCOME frames:
//
//	-> e
//	<- e, ee, s, es
//
// The client sends an ephemeral X25519 key; the server answers with its
// own ephemeral key and its long-term (static) key, encrypted, and a
// payload (the session id) sealed under keys that only the holder of
// the static key's private half can derive. The client checks the static
// key against the one it pinned, if any. Split then gives one
// ChaCha20-Poly1305 key per direction for the session's frames. The
// prologue binds the framing version and the client's connection id.
// noise_test.go checks this code against the Cacophony test vector of
// the protocol.

// noiseProtocolName is the Noise protocol name; at 32 bytes it is the
// initial handshake hash as it is.
const noiseProtocolName = "Noise_NX_25519_ChaChaPoly_SHA256"

const (
	// noiseKeyLen is the size of an X25519 key and of a hash.
	noiseKeyLen = 32
	// noiseTagLen is the size of a ChaCha20-Poly1305 tag.
	noiseTagLen = chacha20poly1305.Overhead
	// noiseMsg2Len is the size of the server's handshake message with an
	// 8-byte payload (the session id): e, encrypted s, encrypted payload.
	noiseMsg2Len = noiseKeyLen + noiseKeyLen + noiseTagLen + 8 + noiseTagLen
)

// PublicKey is a UDP server's public X25519 key: its identity, which a
// client may pin (Config.ServerKey). Its text form is 64 hex digits.
type PublicKey [noiseKeyLen]byte

// String returns the key as 64 lowercase hex digits.
func (k PublicKey) String() string { return hex.EncodeToString(k[:]) }

// IsZero reports whether k is the zero key (no key).
func (k PublicKey) IsZero() bool { return k == PublicKey{} }

// ParsePublicKey parses a key written by PublicKey.String (64 hex
// digits, either case).
func ParsePublicKey(s string) (PublicKey, error) {
	var k PublicKey
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != len(k) {
		return k, fmt.Errorf("transport: server key %q is not 64 hex digits: %w", s, transport.ErrBadConfig)
	}
	copy(k[:], b)
	if k.IsZero() {
		return k, fmt.Errorf("transport: server key of zeros: %w", transport.ErrBadConfig)
	}
	return k, nil
}

// StaticKey is a UDP server's long-term X25519 key pair. Its public half
// (Public) is what clients pin; keep the private half (Bytes) secret.
type StaticKey struct {
	priv *ecdh.PrivateKey
	pub  PublicKey
}

// GenerateStaticKey returns a new random key pair.
func GenerateStaticKey() (*StaticKey, error) {
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("transport: generate key: %w", err)
	}
	return newStaticKey(priv), nil
}

// NewStaticKey returns the key pair of a 32-byte private key (as Bytes
// returns it).
func NewStaticKey(private []byte) (*StaticKey, error) {
	priv, err := ecdh.X25519().NewPrivateKey(private)
	if err != nil {
		return nil, fmt.Errorf("transport: private key: %v: %w", err, transport.ErrBadConfig)
	}
	return newStaticKey(priv), nil
}

func newStaticKey(priv *ecdh.PrivateKey) *StaticKey {
	k := &StaticKey{priv: priv}
	copy(k.pub[:], priv.PublicKey().Bytes())
	return k
}

// Public returns the public key.
func (k *StaticKey) Public() PublicKey { return k.pub }

// Bytes returns the 32-byte private key.
func (k *StaticKey) Bytes() []byte { return k.priv.Bytes() }

// noiseState is Noise's SymmetricState with its CipherState.
type noiseState struct {
	h, ck [noiseKeyLen]byte
	k     [noiseKeyLen]byte
	hasK  bool
	n     uint64
}

// init starts a handshake: h = the protocol name, ck = h, then the
// prologue is mixed into h.
func (s *noiseState) init(prologue []byte) {
	copy(s.h[:], noiseProtocolName)
	s.ck = s.h
	s.hasK, s.n = false, 0
	s.mixHash(prologue)
}

func (s *noiseState) mixHash(data []byte) {
	h := sha256.New()
	h.Write(s.h[:])
	h.Write(data)
	h.Sum(s.h[:0])
}

// noiseHKDF is Noise's HKDF with two outputs.
func noiseHKDF(ck *[noiseKeyLen]byte, ikm []byte) (o1, o2 [noiseKeyLen]byte) {
	m := hmac.New(sha256.New, ck[:])
	m.Write(ikm)
	var temp [noiseKeyLen]byte
	m.Sum(temp[:0])
	m = hmac.New(sha256.New, temp[:])
	m.Write([]byte{1})
	m.Sum(o1[:0])
	m.Reset()
	m.Write(o1[:])
	m.Write([]byte{2})
	m.Sum(o2[:0])
	return o1, o2
}

func (s *noiseState) mixKey(ikm []byte) {
	s.ck, s.k = noiseHKDF(&s.ck, ikm)
	s.hasK, s.n = true, 0
}

func (s *noiseState) aead() cipher.AEAD {
	a, err := chacha20poly1305.New(s.k[:])
	if err != nil {
		panic(err) // the key is 32 bytes: cannot happen
	}
	return a
}

func noiseNonce(n uint64) []byte {
	var nonce [chacha20poly1305.NonceSize]byte
	binary.LittleEndian.PutUint64(nonce[4:], n)
	return nonce[:]
}

// encryptAndHash appends the encryption of pt (pt itself before the first
// key) to dst and mixes it into h.
func (s *noiseState) encryptAndHash(dst, pt []byte) []byte {
	start := len(dst)
	if s.hasK {
		dst = s.aead().Seal(dst, noiseNonce(s.n), pt, s.h[:])
		s.n++
	} else {
		dst = append(dst, pt...)
	}
	s.mixHash(dst[start:])
	return dst
}

// decryptAndHash appends the decryption of c to dst and mixes c into h.
func (s *noiseState) decryptAndHash(dst, c []byte) ([]byte, error) {
	if !s.hasK {
		s.mixHash(c)
		return append(dst, c...), nil
	}
	out, err := s.aead().Open(dst, noiseNonce(s.n), c, s.h[:])
	if err != nil {
		return dst, fmt.Errorf("transport: handshake message does not open: %w", ErrMalformed)
	}
	s.n++
	s.mixHash(c)
	return out, nil
}

// split returns the two transport keys: initiator to responder, and back.
func (s *noiseState) split() (k1, k2 [noiseKeyLen]byte) {
	return noiseHKDF(&s.ck, nil)
}

func noiseDH(priv *ecdh.PrivateKey, pub []byte) ([]byte, error) {
	p, err := ecdh.X25519().NewPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("transport: handshake key: %w", ErrMalformed)
	}
	out, err := priv.ECDH(p)
	if err != nil { // a low-order point: the shared secret is zero
		return nil, fmt.Errorf("transport: handshake key: %w", ErrMalformed)
	}
	return out, nil
}

// noiseInitiator is the client's side of the handshake.
type noiseInitiator struct {
	st noiseState
	e  *ecdh.PrivateKey
}

// newNoiseInitiator starts the client's handshake with ephemeral key e.
func newNoiseInitiator(prologue []byte, e *ecdh.PrivateKey) *noiseInitiator {
	i := &noiseInitiator{e: e}
	i.st.init(prologue)
	return i
}

// writeMessage1 appends "-> e" and payload (in clear: no key yet).
func (i *noiseInitiator) writeMessage1(dst, payload []byte) []byte {
	e := i.e.PublicKey().Bytes()
	i.st.mixHash(e)
	dst = append(dst, e...)
	return i.st.encryptAndHash(dst, payload)
}

// readMessage2 reads "<- e, ee, s, es" and its payload: it returns the
// server's static key, the payload appended to dst, and the transport
// keys (send, receive). The initiator must not be used again.
func (i *noiseInitiator) readMessage2(dst, msg []byte) (rs PublicKey, payload []byte, send, recv [noiseKeyLen]byte, err error) {
	if len(msg) < 2*noiseKeyLen+2*noiseTagLen {
		return rs, dst, send, recv, fmt.Errorf("transport: handshake message of %d bytes: %w", len(msg), ErrMalformed)
	}
	re := msg[:noiseKeyLen]
	i.st.mixHash(re)
	ee, err := noiseDH(i.e, re)
	if err != nil {
		return rs, dst, send, recv, err
	}
	i.st.mixKey(ee)
	var sbuf [noiseKeyLen]byte
	s, err := i.st.decryptAndHash(sbuf[:0], msg[noiseKeyLen:2*noiseKeyLen+noiseTagLen])
	if err != nil {
		return rs, dst, send, recv, err
	}
	es, err := noiseDH(i.e, s)
	if err != nil {
		return rs, dst, send, recv, err
	}
	i.st.mixKey(es)
	payload, err = i.st.decryptAndHash(dst, msg[2*noiseKeyLen+noiseTagLen:])
	if err != nil {
		return rs, dst, send, recv, err
	}
	copy(rs[:], s)
	send, recv = i.st.split()
	return rs, payload, send, recv, nil
}

// noiseRespond is the server's side of the handshake, in one call: it
// reads the client's "-> e" (msg1, with its clear payload) and appends
// "<- e, ee, s, es" with payload to dst, using ephemeral key e. It returns
// the message and the transport keys (send, receive).
func noiseRespond(prologue []byte, static *StaticKey, e *ecdh.PrivateKey, msg1, dst, payload []byte) (out []byte, send, recv [noiseKeyLen]byte, err error) {
	if len(msg1) < noiseKeyLen {
		return dst, send, recv, fmt.Errorf("transport: handshake message of %d bytes: %w", len(msg1), ErrMalformed)
	}
	var st noiseState
	st.init(prologue)
	re := msg1[:noiseKeyLen]
	st.mixHash(re)
	st.mixHash(msg1[noiseKeyLen:]) // the clear payload
	ee, err := noiseDH(e, re)
	if err != nil {
		return dst, send, recv, err
	}
	es, err := noiseDH(static.priv, re)
	if err != nil {
		return dst, send, recv, err
	}
	epub := e.PublicKey().Bytes()
	st.mixHash(epub)
	out = append(dst, epub...)
	st.mixKey(ee)
	out = st.encryptAndHash(out, static.pub[:])
	st.mixKey(es)
	out = st.encryptAndHash(out, payload)
	recv, send = st.split()
	return out, send, recv, nil
}
