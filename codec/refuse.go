package codec

import (
	"fmt"
	"io"
)

// Reason says why a server refuses a Hello or ends a connection (Bye).
type Reason uint8

// Reasons.
const (
	ReasonNone     Reason = 0 // Bye: an ordinary leave
	ReasonFull     Reason = 1 // the match has no free player slot
	ReasonProtocol Reason = 2 // incompatible protocol version
	ReasonGame     Reason = 3 // incompatible game fingerprint
	ReasonCookie   Reason = 4 // unknown or expired rejoin cookie
	ReasonTimeout  Reason = 5 // Bye: nothing heard for too long
	ReasonShutdown Reason = 6 // Bye: the server is stopping
	ReasonKicked   Reason = 7 // Bye: dropped by the server (e.g. bad datagrams)
	maxReason             = ReasonKicked

	// The goodbye reasons below go only in a Bye's detail byte, after a
	// base reason that receivers of before it know (ByeBase).

	// ReasonEnded says the match ended on purpose (its host ended it).
	ReasonEnded Reason = 8
	// ReasonMigrate says the server is leaving but the match goes on
	// elsewhere: a player of it hosts it next (host migration).
	ReasonMigrate Reason = 9
	maxDetail            = ReasonMigrate
	// ReasonNoRoom, in a Refuse, says no match of the server has the room
	// code of the Hello (added within version 1, for servers that host
	// many matches on one socket; an older client reads such a Refuse as
	// malformed and times out).
	ReasonNoRoom Reason = 10
	// ReasonOperator says the match was ended by the operator of the
	// server or of its relay (the console's end, docs/operations.md). It
	// is never a byte of its own on the wire: its Bye is ReasonEnded's
	// with the operator's mark after the last tick (Bye.Operator), which
	// receivers of before the mark read as ReasonEnded.
	ReasonOperator Reason = 11
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return "none"
	case ReasonFull:
		return "match full"
	case ReasonProtocol:
		return "incompatible protocol"
	case ReasonGame:
		return "incompatible game"
	case ReasonCookie:
		return "bad cookie"
	case ReasonTimeout:
		return "timeout"
	case ReasonShutdown:
		return "shutdown"
	case ReasonKicked:
		return "kicked"
	case ReasonEnded:
		return "match ended"
	case ReasonMigrate:
		return "server leaving, match goes on elsewhere"
	case ReasonNoRoom:
		return "no such room"
	case ReasonOperator:
		return "ended by the operator"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Refuse answers a Hello that the server will not admit. It carries the
// server's protocol version so that a client of another version can say
// which one the server speaks.
//
//	0..3  Magic 0xF5 'R' 'W' 'N'
//	4     type 0xF3
//	5..6  the server's protocol version, uint16 LE
//	7     reason (ReasonFull, ReasonProtocol, ReasonGame, ReasonCookie,
//	      ReasonNoRoom)
//	8     (optional) the game's name's length n, 1..MaxGameName
//	9..   the name: n bytes of printable ASCII ('!'..'~')
//
// The name (added within version 1) says which game the server plays,
// so that a client refused with ReasonGame can say it (a player of
// another game joined the room): a client of before it reads the
// Refuse's first 8 bytes and ignores the rest.
type Refuse struct {
	// Version is the server's protocol version (Append writes
	// ProtocolVersion when it is 0).
	Version uint16
	// Reason says why.
	Reason Reason
	// Game is the name of the game the server plays (its registry
	// name, e.g. "ships"), or "": unsaid. Append leaves out a name that
	// is longer than MaxGameName or not printable ASCII.
	Game string
}

// MaxGameName is the longest game name a Refuse carries.
const MaxGameName = 64

// gameNameOK says whether s goes in a Refuse: 1..MaxGameName bytes of
// printable ASCII.
func gameNameOK(s string) bool {
	if len(s) == 0 || len(s) > MaxGameName {
		return false
	}
	for i := range len(s) {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}

// Length returns the encoded length.
func (m *Refuse) Length() int {
	if gameNameOK(m.Game) {
		return longHeaderLen + 2 + len(m.Game)
	}
	return longHeaderLen + 1
}

// Append appends the encoding to b.
func (m *Refuse) Append(b []byte) []byte {
	b = appendLongHeader(b, TypeRefuse, m.Version)
	b = append(b, byte(m.Reason))
	if gameNameOK(m.Game) {
		b = append(append(b, byte(len(m.Game))), m.Game...)
	}
	return b
}

// ParseRefuse parses a Refuse from the start of b. The version is not
// checked: a client reads a Refuse from a server of any version.
func ParseRefuse(b []byte) (Refuse, int, error) {
	var m Refuse
	v, err := parseLongHeader(b, TypeRefuse)
	if err != nil {
		return m, 0, err
	}
	if len(b) < longHeaderLen+1 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Version = v
	m.Reason = Reason(b[longHeaderLen])
	if (m.Reason < ReasonFull || m.Reason > ReasonCookie) && m.Reason != ReasonNoRoom {
		return m, 0, fmt.Errorf("%w: refuse reason %d", ErrMalformed, m.Reason)
	}
	at := longHeaderLen + 1
	if len(b) == at {
		return m, at, nil
	}
	n := int(b[at])
	if len(b) < at+1+n {
		return m, 0, io.ErrUnexpectedEOF
	}
	name := string(b[at+1 : at+1+n])
	if !gameNameOK(name) {
		return m, 0, fmt.Errorf("%w: refuse game name %q", ErrMalformed, name)
	}
	m.Game = name
	return m, at + 1 + n, nil
}
