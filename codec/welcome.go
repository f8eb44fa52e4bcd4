package codec

import (
	"fmt"
	"io"
)

// Welcome admits a client. The world follows as a world transfer (WorldChunk
// messages with the given Transfer id) of the world at Tick; the client
// acknowledges chunks with WorldAck and starts sending ClientInputs once it
// holds the world.
//
//	0..3    Magic 0xF5 'R' 'W' 'N'
//	4       type 0xF2
//	5..6    protocol version, uint16 LE
//	7       player id (0..MaxPlayers-1; SpectatorID for a spectator)
//	8       connection tag (nonzero; every later short-header datagram of
//	        this connection carries it in its second byte)
//	9..24   cookie (16 bytes) to rejoin as this player
//	25..28  tick: the tick of the world that follows, uint32 LE
//	29      hash bits: world-hash bits in each ServerTicks tick (0..64)
//	30..    tick rate in Hz, uvarint
//	        world transfer id, uvarint
//	        roster length, uvarint, then the roster (Roster.AppendSnapshot):
//	        who is present and the input state of each at Tick
//	        game fingerprint, uint64 LE (the server's full one)
//	        settings length, uvarint (0..MaxSettings), then the host's
//	        match settings (the game's encoding; empty for a game without)
//
// (Protocol version 1 ended at the roster.)
type Welcome struct {
	// Version is the server's protocol version (Append writes
	// ProtocolVersion when it is 0).
	Version uint16
	// Player is the id the client plays as.
	Player uint8
	// Tag is the connection tag (nonzero).
	Tag uint8
	// Cookie lets the client rejoin as Player (Hello with the cookie).
	Cookie [CookieSize]byte
	// Tick is the tick of the world that follows; the first ServerTicks
	// tick the client needs is Tick+1.
	Tick uint32
	// HashBits is how many low bits of the world hash each tick carries.
	HashBits uint8
	// TickRate is the match's ticks per second.
	TickRate uint32
	// Transfer is the id of the world transfer that follows.
	Transfer uint32
	// Roster is the roster snapshot at Tick (aliases the parsed datagram).
	Roster []byte
	// Game is the server's game compatibility fingerprint: a client that
	// takes the host's settings checks it against the game it built from
	// Settings.
	Game uint64
	// Settings are the host's match settings (game.SettingsProvider),
	// empty for a game without (aliases the parsed datagram).
	Settings []byte
}

// MaxSettings is the most bytes of match settings a Welcome carries.
const MaxSettings = 255

// Length returns the encoded length.
func (m *Welcome) Length() int {
	return longHeaderLen + 23 + uvarintLen(uint64(m.TickRate)) + uvarintLen(uint64(m.Transfer)) +
		uvarintLen(uint64(len(m.Roster))) + len(m.Roster) + 8 +
		uvarintLen(uint64(len(m.Settings))) + len(m.Settings)
}

// Append appends the encoding to b.
func (m *Welcome) Append(b []byte) []byte {
	b = appendLongHeader(b, TypeWelcome, m.Version)
	b = append(b, m.Player, m.Tag)
	b = append(b, m.Cookie[:]...)
	b = appendU32(b, m.Tick)
	b = append(b, m.HashBits)
	b = appendUvarint(b, uint64(m.TickRate))
	b = appendUvarint(b, uint64(m.Transfer))
	b = appendUvarint(b, uint64(len(m.Roster)))
	b = append(b, m.Roster...)
	b = appendU64(b, m.Game)
	b = appendUvarint(b, uint64(len(m.Settings)))
	return append(b, m.Settings...)
}

// ParseWelcome parses a Welcome from the start of b. A version other than
// ProtocolVersion fails with ErrVersion (a server of another version
// answers with Refuse instead).
func ParseWelcome(b []byte) (Welcome, int, error) {
	var m Welcome
	v, err := parseLongHeader(b, TypeWelcome)
	if err != nil {
		return m, 0, err
	}
	if v != ProtocolVersion {
		return m, 0, fmt.Errorf("%w: welcome of version %d", ErrVersion, v)
	}
	m.Version = v
	p := longHeaderLen
	if len(b) < p+23 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Player, m.Tag = b[p], b[p+1]
	copy(m.Cookie[:], b[p+2:])
	m.Tick = readU32(b[p+18:])
	m.HashBits = b[p+22]
	p += 23
	if m.TickRate, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.Transfer, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	n, err := readUvarint(b, &p)
	if err != nil {
		return m, 0, err
	}
	if n > uint64(len(b)-p) {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Roster = b[p : p+int(n)]
	p += int(n)
	if len(b)-p < 8 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Game = readU64(b[p:])
	p += 8
	if n, err = readUvarint(b, &p); err != nil {
		return m, 0, err
	}
	if n > MaxSettings {
		return m, 0, fmt.Errorf("%w: welcome settings of %d bytes", ErrMalformed, n)
	}
	if n > uint64(len(b)-p) {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Settings = b[p : p+int(n)]
	p += int(n)
	switch {
	case int(m.Player) >= MaxPlayers && m.Player != SpectatorID:
		return m, 0, fmt.Errorf("%w: welcome player %d", ErrPlayer, m.Player)
	case m.Tag == 0:
		return m, 0, fmt.Errorf("%w: welcome with tag 0", ErrMalformed)
	case m.HashBits > 64:
		return m, 0, fmt.Errorf("%w: welcome hash bits %d", ErrMalformed, m.HashBits)
	case m.TickRate == 0:
		return m, 0, fmt.Errorf("%w: welcome tick rate 0", ErrMalformed)
	}
	return m, p, nil
}
