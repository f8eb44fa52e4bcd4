package udp

import (
	"encoding/binary"
	"fmt"

	"github.com/rewindnet/rewind/transport"
)

// The UDP transport's framing. Every datagram starts with a type byte;
// handshake frames then carry a version byte. All integers are big-endian.
// Connection ids are 64-bit random numbers, never zero: the client picks
// its own (cid, which the server writes on what it sends the client) and
// the server assigns one per session (sid, which the client writes on
// what it sends the server).
//
// Protocol flow:
//
//	client                                server
//	HELLO  v cid, no token, padded  ---->  (keeps no state)
//	                                <----  RETRY v cid token
//	HELLO  v cid token, padded      ---->  checks token: address proven
//	                                       opens session sid
//	                                <----  WELCOME v cid sid   (or REFUSE)
//	DATA   sid payload              <--->  DATA cid payload
//	PING   sid   (when idle a while) --->
//	                                <----  PONG cid
//	BYE    sid                      <--->  BYE cid
//
// A HELLO is padded to udpHelloSize, at least the largest DATA frame, so
// that the path is known to carry full datagrams and so that everything
// the server says to an address it has not verified (RETRY, REFUSE) is
// far smaller than what it heard: a spoofed source gains no amplification.
//
// Version 2 (the default) runs a Noise handshake in HELLO and WELCOME
// (noise.go) and seals every later frame (seal.go):
//
//	client                                server
//	HELLO  2 cid e, no token, padded ---->  (keeps no state)
//	                                <----  RETRY 2 cid token(address, cid, e)
//	HELLO  2 cid e token, padded    ---->  checks token: address proven;
//	                                       Noise: e, ee, s, es; opens sid
//	                                <----  WELCOME 2 cid e' {s} {sid}
//	client checks s (pinned key?), derives the session keys
//	DATA'  sid ctr {payload}        <--->  DATA' cid ctr {payload}
//	PING'  sid ctr {}  /  PONG' cid ctr {}  /  BYE' id ctr {}
//
// where {x} is sealed (ChaCha20-Poly1305) and DATA', PING', PONG', BYE'
// are the sealed frame types. Nothing after the handshake is in clear but
// the type, the receiver's id and the counter.
//
// Version history:
//
//	1  first version: plaintext, 64-bit connection ids, HMAC-SHA-256 retry
//	   tokens. Still spoken with Config.Plaintext.
//	2  Noise_NX_25519_ChaChaPoly_SHA256 handshake in HELLO and WELCOME,
//	   sealed short frames (types 0x20-0x23) with replay windows; the
//	   retry token also binds the client's ephemeral key; HELLOs padded
//	   to the largest sealed frame.
const (
	// HELLO: type(1)=0x01 version(1) cid(8) tokenLen(1) token(tokenLen)
	//        zero padding to at least udpHelloSize bytes.
	udpHello = 0x01
	// RETRY: type(1)=0x02 version(1) cid(8) tokenLen(1) token(tokenLen)
	udpRetry = 0x02
	// WELCOME: type(1)=0x03 version(1) cid(8) sid(8)
	udpWelcome = 0x03
	// REFUSE: type(1)=0x04 version(1) cid(8) reason(1)
	udpRefuse = 0x04
	// DATA: type(1)=0x10 id(8) payload(0..MaxDatagram)
	udpData = 0x10
	// BYE: type(1)=0x11 id(8)
	udpBye = 0x11
	// PING: type(1)=0x12 sid(8)
	udpPing = 0x12
	// PONG: type(1)=0x13 cid(8)
	udpPong = 0x13

	// Version 2. HELLO: type(1)=0x01 version(1)=2 cid(8) e(32)
	//        tokenLen(1) token(tokenLen) zero padding to udpHelloSize.
	// WELCOME: type(1)=0x03 version(1)=2 cid(8) noise(noiseMsg2Len): the
	//        server's e(32), its static key sealed (48), sid sealed (24).
	// RETRY and REFUSE: as in version 1, with version 2.
	// Sealed short frames: type(1) id(8) counter(8) sealed payload and
	// tag(16), the types below (seal.go).

	// DATA': a sealed DATA, payload 0..MaxDatagram.
	udpSealedData = 0x20
	// BYE': a sealed BYE, empty payload.
	udpSealedBye = 0x21
	// PING': a sealed PING, empty payload.
	udpSealedPing = 0x22
	// PONG': a sealed PONG, empty payload.
	udpSealedPong = 0x23
)

const (
	// udpVersion is the plaintext framing version (Config.Plaintext).
	udpVersion = 1
	// udpVersionSealed is the sealed framing version (the default).
	udpVersionSealed = 2
	// udpDataOverhead is the plaintext DATA header: type and connection id.
	udpDataOverhead = 1 + 8
	// udpMaxFrame is the largest valid frame: a full sealed DATA frame.
	udpMaxFrame = udpSealedOverhead + transport.MaxDatagram
	// udpHelloSize is the smallest valid HELLO.
	udpHelloSize = udpMaxFrame
	// udpMaxToken bounds a token's length.
	udpMaxToken = 64
)

// Refusal reasons in a REFUSE frame.
const (
	udpRefuseFull    = 1 // the server has MaxSessions sessions
	udpRefuseVersion = 2 // the server does not speak the HELLO's version
)

// udpFrame is a parsed frame. token and payload alias the parsed bytes.
type udpFrame struct {
	typ       byte
	version   byte
	id        uint64 // cid in handshake frames; the addressed id otherwise
	sid       uint64 // WELCOME of version 1 only
	reason    byte   // REFUSE only
	token     []byte // HELLO, RETRY
	payload   []byte // DATA
	ephemeral []byte // HELLO of version 2: the client's Noise e
	noise     []byte // WELCOME of version 2: the server's Noise message
	counter   uint64 // sealed frames
	header    []byte // sealed frames: the clear header (associated data)
	sealed    []byte // sealed frames: ciphertext and tag
}

// udpUnsealedType maps a sealed frame type to its plaintext twin.
func udpUnsealedType(typ byte) byte { return typ - udpSealedData + udpData }

// The parser's errors, made once: a flood of malformed datagrams
// allocates nothing (they carry no figures of the datagram for that).
var (
	errUDPEmpty        = fmt.Errorf("transport: empty udp datagram: %w", ErrMalformed)
	errUDPTooLong      = fmt.Errorf("transport: udp datagram longer than any frame: %w", ErrMalformed)
	errUDPShortLength  = fmt.Errorf("transport: udp frame of the wrong length for its type: %w", ErrMalformed)
	errUDPTrailing     = fmt.Errorf("transport: udp frame with trailing bytes: %w", ErrMalformed)
	errUDPType         = fmt.Errorf("transport: udp frame of an unknown type: %w", ErrMalformed)
	errUDPVersionHello = fmt.Errorf("transport: udp hello of another version, too short or with connection id 0: %w", ErrMalformed)
	errUDPVersion      = fmt.Errorf("transport: udp frame of an unknown version: %w", ErrMalformed)
	errUDPNoKey        = fmt.Errorf("transport: udp hello without a key: %w", ErrMalformed)
	errUDPToken        = fmt.Errorf("transport: udp token length: %w", ErrMalformed)
	errUDPShortHello   = fmt.Errorf("transport: udp hello under the padded size: %w", ErrMalformed)
	errUDPZeroID       = fmt.Errorf("transport: udp connection id 0: %w", ErrMalformed)
)

// parseUDPFrame decodes one datagram. It never allocates, also when it
// fails.
func parseUDPFrame(b []byte) (udpFrame, error) {
	var f udpFrame
	if len(b) == 0 {
		return f, errUDPEmpty
	}
	if len(b) > udpMaxFrame {
		return f, errUDPTooLong
	}
	f.typ = b[0]
	switch f.typ {
	case udpSealedData, udpSealedBye, udpSealedPing, udpSealedPong:
		if len(b) < udpSealedOverhead {
			return f, errUDPShortLength
		}
		if f.typ != udpSealedData && len(b) != udpSealedOverhead {
			return f, errUDPTrailing
		}
		f.id = binary.BigEndian.Uint64(b[1:9])
		f.counter = binary.BigEndian.Uint64(b[9:17])
		f.header, f.sealed = b[:udpSealedHeader], b[udpSealedHeader:]
	case udpData, udpBye, udpPing, udpPong:
		if len(b) < udpDataOverhead || len(b) > udpDataOverhead+transport.MaxDatagram {
			return f, errUDPShortLength
		}
		f.id = binary.BigEndian.Uint64(b[1:9])
		if f.typ == udpData {
			f.payload = b[9:]
		} else if len(b) != udpDataOverhead {
			return f, errUDPTrailing
		}
	case udpHello, udpRetry, udpWelcome, udpRefuse:
		return parseUDPHandshake(f, b)
	default:
		return f, errUDPType
	}
	return f, nil
}

// parseUDPHandshake decodes the rest of a handshake frame (HELLO, RETRY,
// WELCOME, REFUSE) whose type f.typ parseUDPFrame has read. It never
// allocates, also when it fails.
func parseUDPHandshake(f udpFrame, b []byte) (udpFrame, error) {
	if len(b) < 10 {
		return f, errUDPShortLength
	}
	f.version = b[1]
	f.id = binary.BigEndian.Uint64(b[2:10])
	rest := b[10:]
	known := f.version == udpVersion || f.version == udpVersionSealed
	if f.typ == udpHello && !known {
		// Another version's HELLO: only its version-independent head
		// (type, version, cid) is read, so that it can be refused.
		if len(b) < udpHelloSize || f.id == 0 {
			return f, errUDPVersionHello
		}
		return f, nil
	}
	if !known {
		return f, errUDPVersion
	}
	if f.typ == udpHello && f.version == udpVersionSealed {
		if len(rest) < noiseKeyLen {
			return f, errUDPNoKey
		}
		f.ephemeral, rest = rest[:noiseKeyLen], rest[noiseKeyLen:]
	}
	switch f.typ {
	case udpHello, udpRetry:
		if len(rest) < 1 || int(rest[0]) > len(rest)-1 || rest[0] > udpMaxToken {
			return f, errUDPToken
		}
		f.token = rest[1 : 1+rest[0]]
		rest = rest[1+rest[0]:]
		if f.typ == udpRetry && len(rest) != 0 {
			return f, errUDPTrailing
		}
		if f.typ == udpHello && len(b) < udpHelloSize {
			return f, errUDPShortHello
		}
	case udpWelcome:
		if f.version == udpVersionSealed {
			if len(rest) != noiseMsg2Len {
				return f, errUDPShortLength
			}
			f.noise = rest
			break
		}
		if len(rest) != 8 {
			return f, errUDPShortLength
		}
		f.sid = binary.BigEndian.Uint64(rest)
	case udpRefuse:
		if len(rest) != 1 {
			return f, errUDPShortLength
		}
		f.reason = rest[0]
	}
	if f.id == 0 || (f.typ == udpWelcome && f.version == udpVersion && f.sid == 0) {
		return f, errUDPZeroID
	}
	return f, nil
}

// appendUDPHello appends a HELLO of version 1 padded to udpHelloSize.
func appendUDPHello(b []byte, cid uint64, token []byte) []byte {
	return appendUDPHelloV(b, udpVersion, cid, nil, token)
}

// appendUDPHelloSealed appends a HELLO of version 2 with the client's
// ephemeral key e, padded to udpHelloSize.
func appendUDPHelloSealed(b []byte, cid uint64, e, token []byte) []byte {
	return appendUDPHelloV(b, udpVersionSealed, cid, e, token)
}

func appendUDPHelloV(b []byte, v byte, cid uint64, e, token []byte) []byte {
	start := len(b)
	b = append(b, udpHello, v)
	b = binary.BigEndian.AppendUint64(b, cid)
	b = append(b, e...)
	b = append(b, byte(len(token)))
	b = append(b, token...)
	for len(b)-start < udpHelloSize {
		b = append(b, 0)
	}
	return b
}

// appendUDPRetry appends a RETRY of version v.
func appendUDPRetry(b []byte, v byte, cid uint64, token []byte) []byte {
	b = append(b, udpRetry, v)
	b = binary.BigEndian.AppendUint64(b, cid)
	b = append(b, byte(len(token)))
	return append(b, token...)
}

// appendUDPWelcome appends a WELCOME of version 1.
func appendUDPWelcome(b []byte, cid, sid uint64) []byte {
	b = append(b, udpWelcome, udpVersion)
	b = binary.BigEndian.AppendUint64(b, cid)
	return binary.BigEndian.AppendUint64(b, sid)
}

// appendUDPWelcomeSealed appends a WELCOME of version 2 carrying the
// server's Noise message.
func appendUDPWelcomeSealed(b []byte, cid uint64, noise []byte) []byte {
	b = append(b, udpWelcome, udpVersionSealed)
	b = binary.BigEndian.AppendUint64(b, cid)
	return append(b, noise...)
}

// appendUDPRefuse appends a REFUSE of version v.
func appendUDPRefuse(b []byte, v byte, cid uint64, reason byte) []byte {
	b = append(b, udpRefuse, v)
	b = binary.BigEndian.AppendUint64(b, cid)
	return append(b, reason)
}

// appendUDPShort appends a plaintext DATA, BYE, PING or PONG frame
// (version 1; udpSealKey.seal writes version 2's).
func appendUDPShort(b []byte, typ byte, id uint64, payload []byte) []byte {
	b = append(b, typ)
	b = binary.BigEndian.AppendUint64(b, id)
	return append(b, payload...)
}
