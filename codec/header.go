package codec

import (
	"fmt"
	"io"
)

// ProtocolVersion is the version of the match protocol this package speaks.
//
// Version history:
//
//	1  first version (rewind 0.1): long-header handshake (Hello, Welcome,
//	   Refuse), short-header match messages, 16-bit tick numbers on the wire.
//	   Later additions within version 1, which receivers of before them
//	   pass over: the Bye's optional detail byte (ReasonEnded,
//	   ReasonMigrate; an older receiver reads the base reason and ignores
//	   the rest) and the Handover message (type 0xB; an older receiver
//	   counts it as a bad datagram and drops it), the Waiting message
//	   (type 0xC) and the Chat message (type 0xD), dropped by an older
//	   receiver the same way; the operator's mark after the Bye's last
//	   tick (ReasonOperator), read as ReasonEnded by an older receiver.
//	2  the Welcome ends with the server's game fingerprint and the host's
//	   match settings; the Hello's flag bit 3 (the client takes the host's
//	   settings and sends the base fingerprint). A version 1 peer is
//	   refused with ReasonProtocol. Added within version 2: the Module
//	   messages (type 0xE: ModuleRequest, ModuleChunk), which an older
//	   receiver drops as a bad datagram.
const ProtocolVersion = 2

// MaxDatagram is the largest datagram of the match protocol, in bytes (the
// design's MTU). A message that could grow past it (Chat, Handover,
// PageHashes, WorldChunk, ServerTicks) is sized to fit. codec keeps its
// own constant, knowing no transport; transport.MaxDatagram, what every
// transport must carry, is the same number (TestMaxDatagramIsTransports).
const MaxDatagram = 1200

// magic opens every long-header datagram (Hello, Welcome, Refuse). Its
// first byte has the high nibble 0xF, which no short-header type uses, so
// the first byte alone tells the two headers apart; Peek checks all four.
//
//	0xF5 'R' 'W' 'N'
const magic = "\xF5RWN"

// Type is a message type.
type Type uint8

// Short-header types: the first byte of the datagram is Type<<4 | flags
// (four flag bits whose meaning depends on the type), the second byte is
// the connection tag from Welcome.
const (
	TypeClientInputs    Type = 0x1 // client -> server: inputs per tick + ack of server ticks
	TypeServerTicks     Type = 0x2 // server -> client: ticks + ack of client inputs
	TypeWorldChunk      Type = 0x3 // server -> client: a piece of a world transfer
	TypeWorldAck        Type = 0x4 // client -> server: chunks held of a world transfer
	TypePageHashRequest Type = 0x5 // client -> server: send me page hashes at a tick
	TypePageHashes      Type = 0x6 // server -> client: page hashes at a tick
	TypePageRequest     Type = 0x7 // client -> server: send me these pages at a tick
	TypePing            Type = 0x8 // either way: echo this
	TypePong            Type = 0x9 // either way: the echo
	TypeBye             Type = 0xA // either way: I am leaving / you are dropped
	TypeHandover        Type = 0xB // server -> client: host migration data
	TypeWaiting         Type = 0xC // server -> client: the match is stalled, waiting for these players
	TypeChat            Type = 0xD // either way: match messages (names, chat), reliable per sender
	TypeModule          Type = 0xE // ModuleRequest (client -> server, flags 0) or ModuleChunk (server -> client, flag bit 0): the game module's bytes
)

// Long-header types: the datagram starts with Magic, then the type byte,
// then the protocol version (uint16, little-endian).
const (
	TypeHello   Type = 0xF1 // client -> server: let me in
	TypeWelcome Type = 0xF2 // server -> client: you are in
	TypeRefuse  Type = 0xF3 // server -> client: you are not
)

// String names the type.
func (t Type) String() string {
	switch t {
	case TypeClientInputs:
		return "ClientInputs"
	case TypeServerTicks:
		return "ServerTicks"
	case TypeWorldChunk:
		return "WorldChunk"
	case TypeWorldAck:
		return "WorldAck"
	case TypePageHashRequest:
		return "PageHashRequest"
	case TypePageHashes:
		return "PageHashes"
	case TypePageRequest:
		return "PageRequest"
	case TypePing:
		return "Ping"
	case TypePong:
		return "Pong"
	case TypeBye:
		return "Bye"
	case TypeHandover:
		return "Handover"
	case TypeWaiting:
		return "Waiting"
	case TypeChat:
		return "Chat"
	case TypeModule:
		return "Module"
	case TypeHello:
		return "Hello"
	case TypeWelcome:
		return "Welcome"
	case TypeRefuse:
		return "Refuse"
	}
	return fmt.Sprintf("Type(%#x)", uint8(t))
}

// Peek returns the type of the datagram b and, for a short-header type, its
// connection tag (0 for long-header types). It checks the magic of long
// headers but not the version. Receivers drop a short-header datagram whose
// tag is not the one they hold (a stray or stale datagram: see docs/wire.md).
func Peek(b []byte) (Type, uint8, error) {
	if len(b) < 2 {
		return 0, 0, io.ErrUnexpectedEOF
	}
	t := Type(b[0] >> 4)
	if t == 0xF {
		if len(b) < 5 {
			return 0, 0, io.ErrUnexpectedEOF
		}
		if string(b[:4]) != magic {
			return 0, 0, ErrBadMagic
		}
		lt := Type(b[4])
		switch lt {
		case TypeHello, TypeWelcome, TypeRefuse:
			return lt, 0, nil
		}
		return 0, 0, fmt.Errorf("%w: long type %#x", ErrUnknownType, b[4])
	}
	if t < TypeClientInputs || t > TypeModule {
		return 0, 0, fmt.Errorf("%w: %#x", ErrUnknownType, b[0])
	}
	return t, b[1], nil
}

// longHeaderLen is magic + type + version.
const longHeaderLen = 7

// appendLongHeader writes the magic, t and version v (ProtocolVersion
// when v is 0).
func appendLongHeader(b []byte, t Type, v uint16) []byte {
	if v == 0 {
		v = ProtocolVersion
	}
	b = append(b, magic...)
	return append(b, byte(t), byte(v), byte(v>>8))
}

// parseLongHeader checks magic, type and version; it returns the version.
func parseLongHeader(b []byte, t Type) (uint16, error) {
	if len(b) < longHeaderLen {
		if len(b) >= 4 && string(b[:4]) != magic {
			return 0, ErrBadMagic
		}
		return 0, io.ErrUnexpectedEOF
	}
	if string(b[:4]) != magic {
		return 0, ErrBadMagic
	}
	if Type(b[4]) != t {
		return 0, fmt.Errorf("%w: %v, want %v", ErrWrongType, Type(b[4]), t)
	}
	v := uint16(b[5]) | uint16(b[6])<<8
	if v == 0 {
		return 0, fmt.Errorf("%w: version 0", ErrVersion)
	}
	return v, nil
}

// shortHeaderLen is the type/flags byte + tag.
const shortHeaderLen = 2

// parseShortHeader checks the type and returns the flags and tag.
func parseShortHeader(b []byte, t Type) (flags, tag uint8, err error) {
	if len(b) < shortHeaderLen {
		return 0, 0, io.ErrUnexpectedEOF
	}
	if Type(b[0]>>4) != t {
		return 0, 0, fmt.Errorf("%w: %v, want %v", ErrWrongType, Type(b[0]>>4), t)
	}
	return b[0] & 0xF, b[1], nil
}

// ExpandTick returns the tick number whose low 16 bits are low and which is
// nearest to near (within -32768..+32767 of it). Receivers pass the tick
// they expect (their latest), as QUIC expands packet numbers.
func ExpandTick(low uint16, near uint32) uint32 {
	d := int16(low - uint16(near))
	return near + uint32(int32(d))
}

// CheckWindow returns an error wrapping ErrTickWindow unless
// lo <= tick <= hi (in wrapping uint32 order around lo).
func CheckWindow(tick, lo, hi uint32) error {
	if tick-lo > hi-lo {
		return fmt.Errorf("%w: tick %d not in [%d, %d]", ErrTickWindow, tick, lo, hi)
	}
	return nil
}
