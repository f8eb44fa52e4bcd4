package roomproto

// The rooms protocol: JSON text messages over one WebSocket per host or
// player (docs/rooms.md documents every message with examples).
//
// Protocol flow:
//
//	host                      relay                       player
//	{"type":"host","v":1} --> room ABC234, key K
//	    <-- {"type":"hosted","code":"ABC234","key":K,"ice":[TURN]}
//	                                 <-- {"type":"join","v":1,"code":"ABC234"}
//	    <-- {"type":"player","id":"p1"}   {"type":"joined","id":"p1","ice":[TURN]} -->
//	                                 <-- {"type":"signal","signal":{offer}}
//	    <-- {"type":"signal","from":"p1","signal":{offer}}
//	{"type":"signal","to":"p1","signal":{answer}} -->
//	                                      {"type":"signal","signal":{answer}} -->
//	... candidates both ways the same way ...
//	                                 <-- {"type":"connected"}  (data channel open)
//	    <-- {"type":"ping","n":7}  every PingInterval
//	{"type":"pong","n":7} -->            (no pong for HostTimeout: host gone)
//	    <-- {"type":"left","id":"p1"}     (player's WebSocket closed)
//	{"type":"end","code":"ABC234","key":K} --> {"type":"ended","reason":"ended"} -->
//
// Host migration (a room hosted with "migrate":true; relay/migrate.go):
//
//	host's WebSocket closes, or no pong for HostTimeout:
//	                                      {"type":"host_lost","code":"ABC234"} --> players
//	                       <-- {"type":"claim","v":1,"code":"ABC234","key":K}   (each player)
//	first claimant:  {"type":"hosted","claim":"host","code":..,"key":K} -->
//	the others:      {"type":"joined","claim":"new","id":"p7"} --> and signal as a join
//
// Errors come as {"type":"error","error":CODE,"re":TYPE,"reason":TEXT}.
// no_room, room_full, room_busy, room_ended, bad_key, code_taken, bad_code,
// no_player, full, too_many_rooms leave the connection open; bad_message, bad_version,
// too_large, rate_limited, too_many_conns, unauthorized, slow, host_gone and idle are followed by a close
// of that connection (status 1008, or 1009 for too_large) with the reason.
//
// Version history:
//
//	1  first version: host, join, signal, connected, ping/pong, end, left,
//	   ended, error. Added later within version 1 (host migration):
//	   host's "migrate" flag, claim, host_lost, and the "claim" field of
//	   hosted and joined; a relay of before them answers a claim with
//	   bad_message.
//	2  match servers (relay/serve.go): one connection hosts many rooms
//	   ("serve" with "slots", then "host" once per room; "player",
//	   "signal", "left" and "ended" carry the room's "code", and the
//	   server's "signal" names it), and rooms opened on demand ("open"
//	   from a lobby, "open" to a match server that registered with
//	   "onDemand", answered "opened"; "full" when no server has a free
//	   slot). host, join and claim still carry "v":1 (or 2): a client of
//	   version 1 talks to a relay of version 2 unchanged; a relay of
//	   version 1 answers serve and open with bad_message. Also with
//	   version 2: join's "spectator" flag (the joiner counts against
//	   RoomConfig.MaxSpectators, not the room's players; a relay of
//	   before it ignores the flag and counts a player); "opened" to the
//	   lobby carries the room's "key"; a match server that connects
//	   again claims its rooms back ("claim" with code and key on its
//	   connection, answered "hosted" with "claim":"host":
//	   relay/serve_claim.go; a relay of before answers bad_message, and
//	   the server keeps the rooms unjoinable). Later within version 2
//	   (issue 30): serve's "auth" (a relay with a server token refuses
//	   a serve without the proof: unauthorized, auth.go), and the errors
//	   too_many_rooms and unauthorized. Later within version 2 (issue
//	   29): "lookup" with a code, answered "found" (the code alone) or
//	   no_room, without joining: the page's join-by-code field says as a
//	   code is typed whether it exists. A lookup that finds no room counts
//	   as a failed join (per address, fleet-wide budget); a relay of
//	   before answers bad_message (and closes the connection). Later
//	   within version 2 (issue 43): "rekey" from a room's host with the
//	   code and a new key, answered "rekeyed": the room's key is the new
//	   one from then on (the host rotates it when a player leaves, so
//	   that a player who left cannot claim or end the room); a relay of
//	   before answers bad_message and closes the host's connection.
//
// Match server flow (version 2):
//
//	server                    relay                        lobby
//	{"type":"serve","v":2,"slots":2,"onDemand":true} -->
//	    <-- {"type":"serving","v":2,"slots":2}
//	{"type":"host","v":1} -->     (a room opened at start; any number up to slots)
//	    <-- {"type":"hosted","code":"ABC234","key":K,"ice":[..]}
//	                                  <-- {"type":"open","v":2}
//	    <-- {"type":"open","code":"QX7K2M","key":K2,"maxPlayers":8,"ice":[..]}
//	{"type":"opened","code":"QX7K2M"} -->
//	                                      {"type":"opened","v":2,"code":"QX7K2M"} -->
//	    <-- {"type":"player","code":"QX7K2M","id":"p1"}   (players join as in version 1)
//	{"type":"signal","code":"QX7K2M","to":"p1",..} -->
//	{"type":"end","code":"QX7K2M","key":K2} -->  (its match ended: the slot is free)
//	... the relay connection drops; at a relay of the fleet: ...
//	{"type":"serve","v":2,"slots":2,"onDemand":true} -->
//	{"type":"claim","v":1,"code":"ABC234","key":K} -->
//	    <-- {"type":"hosted","code":"ABC234","key":K,"claim":"host"}  (or room_busy: again later)

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// Version is the rooms protocol version this relay speaks
// (field "v" of host, join, claim, serve and open).
// A relay of version 2 still takes host, join and claim of version 1
// (clients send 1 there: nothing in them changed); serve and open need 2.
const Version = 2

// V1 is the version host, join and claim are sent with.
const V1 = 1

// Message types of the rooms protocol.
const (
	MsgHost      = "host"      // host → relay: register a room
	MsgHosted    = "hosted"    // relay → host: the room's code, key, ICE servers
	MsgJoin      = "join"      // player → relay: join a room by code (spectator?)
	MsgJoined    = "joined"    // relay → player: own id, ICE servers
	MsgPlayer    = "player"    // relay → host: a player joined
	MsgLeft      = "left"      // relay → host: a player's connection closed
	MsgSignal    = "signal"    // either way: WebRTC offer, answer, candidate
	MsgConnected = "connected" // player → relay: data channel open
	MsgPing      = "ping"      // relay → host
	MsgPong      = "pong"      // host → relay
	MsgEnd       = "end"       // anyone with the key → relay: end the room
	MsgEnded     = "ended"     // relay → players (and host): the room ended
	MsgError     = "error"     // relay → anyone
	MsgClaim     = "claim"     // player → relay: my host is gone, the match goes on (code, key, noHost?)
	MsgHostLost  = "host_lost" // relay → players: the host's relay connection closed or it failed pings
	MsgServe     = "serve"     // match server → relay: host many rooms on this connection (slots, onDemand) (v2)
	MsgServing   = "serving"   // relay → match server: registered (slots) (v2)
	MsgOpen      = "open"      // lobby → relay: open a room on a match server; relay → server: open this room (v2)
	MsgOpened    = "opened"    // server → relay: the room is open (or refused: reason); relay → lobby: its code (v2)
	MsgICE       = "ice"       // relay → host or match server: fresh ICE servers (TURN credentials) for the peers that connect from now on
	MsgLookup    = "lookup"    // anyone → relay: does a room with this code exist? (v2; answered found or no_room, counted as a failed join when not)
	MsgFound     = "found"     // relay → the lookup's sender: the room exists (its code, nothing more)
	MsgRekey     = "rekey"     // host → relay: the room's key is this new one from now on (a player left: issue 43)
	MsgRekeyed   = "rekeyed"   // relay → host: the new key holds (claims and ends need it)
)

// EndedByOperator begins the reason of an "ended" message when the
// relay's operator ended the room (its console, docs/operations.md): the
// room's host says goodbye to its players with the operator's reason
// (codec.ReasonOperator) rather than a plain end.
const EndedByOperator = "ended by the operator"

// Outcomes of a claim, in the "claim" field of the "hosted" or "joined"
// that answers it.
const (
	// ClaimHost: the claimant hosts the match now ("hosted").
	ClaimHost = "host"
	// ClaimSame: the host answered the relay's probe: the claimant
	// goes back to the same host ("joined") and rejoins with its cookie.
	ClaimSame = "same"
	// ClaimNew: another claimant took the match over: the claimant
	// is introduced to that new host ("joined").
	ClaimNew = "new"
)

// Error codes of "error" messages.
const (
	ErrCodeNoRoom       = "no_room"
	ErrCodeRoomFull     = "room_full"
	ErrCodeRoomBusy     = "room_busy"
	ErrCodeRoomEnded    = "room_ended"
	ErrCodeBadKey       = "bad_key"
	ErrCodeCodeTaken    = "code_taken"
	ErrCodeBadCode      = "bad_code"
	ErrCodeNoPlayer     = "no_player"
	ErrCodeBadMessage   = "bad_message"
	ErrCodeBadVersion   = "bad_version"
	ErrCodeTooLarge     = "too_large"
	ErrCodeRateLimited  = "rate_limited"
	ErrCodeTooManyConns = "too_many_conns"
	ErrCodeSlow         = "slow"
	ErrCodeHostGone     = "host_gone"
	ErrCodeIdle         = "idle"
	ErrCodeJoinTimeout  = "join_timeout"
	ErrCodeFull         = "full"
	ErrCodeTooManyRooms = "too_many_rooms"
	ErrCodeUnauthorized = "unauthorized"
	ErrCodeUnavailable  = "unavailable"
)

// roomErrs maps error codes to the package's errors.
var roomErrs = map[string]error{
	ErrCodeNoRoom:       ErrNoRoom,
	ErrCodeRoomFull:     ErrRoomFull,
	ErrCodeRoomBusy:     ErrRoomBusy,
	ErrCodeRoomEnded:    ErrRoomEnded,
	ErrCodeBadKey:       ErrBadKey,
	ErrCodeCodeTaken:    ErrCodeTaken,
	ErrCodeBadCode:      ErrBadCode,
	ErrCodeNoPlayer:     ErrNoPlayer,
	ErrCodeBadMessage:   ErrBadMessage,
	ErrCodeBadVersion:   ErrBadVersion,
	ErrCodeTooLarge:     ErrTooLarge,
	ErrCodeRateLimited:  ErrRateLimited,
	ErrCodeTooManyConns: ErrTooManyConns,
	ErrCodeSlow:         ErrRelayClosed,
	ErrCodeHostGone:     ErrHostGone,
	ErrCodeIdle:         ErrRelayClosed,
	ErrCodeJoinTimeout:  ErrJoinTimeout,
	ErrCodeFull:         ErrFull,
	ErrCodeTooManyRooms: ErrTooManyRooms,
	ErrCodeUnauthorized: ErrUnauthorized,
	ErrCodeUnavailable:  ErrUnavailable,
}

// Error is an "error" message received from the relay. It unwraps to
// the package error for its code (ErrNoRoom for "no_room", ...).
type Error struct {
	Code   string // error code, e.g. "no_room"
	Re     string // type of the message it answers
	Reason string // human-readable text
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("relay: %s (%s): %s", e.Code, e.Re, e.Reason)
}

// Unwrap returns the package error for the code.
func (e *Error) Unwrap() error {
	if err, ok := roomErrs[e.Code]; ok {
		return err
	}
	return ErrBadMessage
}

// ErrCodeOf returns the error code of the first of the package's errors
// that err wraps (ErrCodeNoRoom for ErrNoRoom, ...); false if it wraps
// none. ErrRelayClosed, which two codes unwrap to (slow, idle), has no
// code of its own.
func ErrCodeOf(err error) (string, bool) {
	for code, e := range roomErrs {
		if errors.Is(err, e) && e != ErrRelayClosed {
			return code, true
		}
	}
	return "", false
}

// Limits on fields, so that a message's size bounds what it makes the relay
// keep (a room code's are roomcode.Len to roomcode.MaxLen).
const (
	// KeyHexLen is the length of a room key: 128 bits as hex digits.
	KeyHexLen = 32
	// MaxIDLen bounds a player id ("to" of a signal).
	MaxIDLen = 16
	// MaxReason bounds the reason text of an "error" or "opened".
	MaxReason = 200
	// MaxPlayers bounds the "maxPlayers" of host, claim, serve and open.
	MaxPlayers = 1024
	// MaxSlots bounds the "slots" of serve.
	MaxSlots = 100000
)

// Msg is every rooms-protocol message: Type says which fields count.
type Msg struct {
	Type       string             `json:"type"`
	V          int                `json:"v,omitempty"`
	Code       string             `json:"code,omitempty"`
	Key        string             `json:"key,omitempty"`
	MaxPlayers int                `json:"maxPlayers,omitempty"`
	ID         string             `json:"id,omitempty"`
	To         string             `json:"to,omitempty"`
	From       string             `json:"from,omitempty"`
	Signal     *webrtc.Signal     `json:"signal,omitempty"`
	N          uint64             `json:"n,omitempty"`
	ICE        []webrtc.ICEServer `json:"ice,omitempty"`
	Players    []string           `json:"players,omitempty"`
	Error      string             `json:"error,omitempty"`
	Re         string             `json:"re,omitempty"`
	Reason     string             `json:"reason,omitempty"`
	Migrate    bool               `json:"migrate,omitempty"`
	Claim      string             `json:"claim,omitempty"`
	NoHost     bool               `json:"noHost,omitempty"`
	Slots      int                `json:"slots,omitempty"`
	OnDemand   bool               `json:"onDemand,omitempty"`
	Spectator  bool               `json:"spectator,omitempty"`
	Auth       string             `json:"auth,omitempty"`
}

// Decode parses and checks a message a host or player sent to the
// relay. Unknown fields are ignored (a later version may add some); a
// missing or malformed field is an error wrapping ErrBadMessage.
func Decode(b []byte) (Msg, error) {
	var m Msg
	if err := json.Unmarshal(b, &m); err != nil {
		return Msg{}, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	if err := m.check(); err != nil {
		return Msg{}, err
	}
	return m, nil
}

func badField(typ, what string) error {
	return fmt.Errorf("%w: %s: %s", ErrBadMessage, typ, what)
}

// check validates the fields of a client-to-relay message.
func (m *Msg) check() error {
	switch m.Type {
	case MsgHost:
		if m.Code != "" && !roomcode.ValidLen(m.Code) {
			return fmt.Errorf("%w: %q", ErrBadCode, m.Code)
		}
		if m.MaxPlayers < 0 || m.MaxPlayers > MaxPlayers {
			return badField(m.Type, "maxPlayers out of range")
		}
	case MsgJoin:
		if m.Code == "" {
			return badField(m.Type, "no code")
		}
	case MsgSignal:
		if m.Signal == nil {
			return badField(m.Type, "no signal")
		}
		switch m.Signal.Kind {
		case webrtc.SignalOffer, webrtc.SignalAnswer:
			if m.Signal.SDP == "" {
				return badField(m.Type, "no sdp")
			}
		case webrtc.SignalCandidate:
		default:
			return badField(m.Type, "unknown signal kind")
		}
		if len(m.To) > MaxIDLen {
			return badField(m.Type, "bad to")
		}
		if m.Code != "" && !roomcode.ValidLen(m.Code) {
			return badField(m.Type, "bad code")
		}
	case MsgServe:
		if m.Slots <= 0 || m.Slots > MaxSlots {
			return badField(m.Type, "slots out of range")
		}
		if m.MaxPlayers < 0 || m.MaxPlayers > MaxPlayers {
			return badField(m.Type, "maxPlayers out of range")
		}
		if len(m.Auth) > MaxAuthLen {
			return badField(m.Type, "auth too long")
		}
	case MsgOpen:
		if m.MaxPlayers < 0 || m.MaxPlayers > MaxPlayers {
			return badField(m.Type, "maxPlayers out of range")
		}
	case MsgOpened:
		if !roomcode.ValidLen(m.Code) || len(m.Reason) > MaxReason {
			return badField(m.Type, "needs a code")
		}
	case MsgEnd, MsgClaim, MsgRekey:
		if !roomcode.ValidLen(m.Code) || len(m.Key) != KeyHexLen {
			return badField(m.Type, "needs code and key")
		}
		if m.Type == MsgClaim && (m.MaxPlayers < 0 || m.MaxPlayers > MaxPlayers) {
			return badField(m.Type, "maxPlayers out of range")
		}
	case MsgLookup:
		if !roomcode.ValidLen(m.Code) {
			return fmt.Errorf("%w: %.20q", ErrBadCode, m.Code)
		}
	case MsgConnected, MsgPong:
	default:
		return badField("type", fmt.Sprintf("unknown type %.20q", m.Type))
	}
	switch m.Type {
	case MsgHost, MsgJoin, MsgClaim:
		if m.V != V1 && m.V != Version {
			return fmt.Errorf("%w: %d (this relay speaks %d to %d)", ErrBadVersion, m.V, V1, Version)
		}
	case MsgServe, MsgOpen, MsgLookup:
		if m.V != Version {
			return fmt.Errorf("%w: %s needs %d, not %d", ErrBadVersion, m.Type, Version, m.V)
		}
	}
	return nil
}

// Encode marshals a message; the types are fixed, so it cannot fail.
func (m *Msg) Encode() []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic("relay: encoding a room message: " + err.Error())
	}
	return b
}

// ErrorMsg is an "error" message answering a message of type re.
func ErrorMsg(code, re, reason string) Msg {
	if len(reason) > MaxReason {
		reason = reason[:MaxReason]
	}
	return Msg{Type: MsgError, Error: code, Re: re, Reason: reason}
}
