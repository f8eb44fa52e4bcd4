package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// LobbyMaxMessage is the largest lobby message WebDoom accepts, in
// bytes (larger ones close the socket).
const LobbyMaxMessage = 1024

// Lobby message types a client sends (field "t").
const (
	TypeName   = "name"   // {t:'name',name}
	TypeSlot   = "slot"   // {t:'slot',slot}
	TypeParams = "params" // {t:'params',params}
	TypeStart  = "start"  // {t:'start'}
	TypePing   = "ping"   // {t:'ping',t0}
	TypeJoin   = "join"   // {t:'join',slot?,name?}
)

// LobbyRequest is one message a client sent on /ws/lobby, read as
// WebDoom's server reads it: any JSON value; its fields are coerced with
// JavaScript's rules by the accessors. Values that are not objects have no
// fields (and no type).
type LobbyRequest struct {
	// Type is the "t" field when it is a JSON string, else "".
	Type   string
	fields map[string]any
}

// ParseLobbyRequest decodes one lobby message. It fails with
// ErrJSON when b is not one JSON value (WebDoom ignores those) or is
// null, and with ErrTooLong past LobbyMaxMessage bytes.
func ParseLobbyRequest(b []byte) (LobbyRequest, error) {
	var r LobbyRequest
	if len(b) > LobbyMaxMessage {
		return r, fmt.Errorf("lobby message of %d bytes: %w", len(b), ErrTooLong)
	}
	if !json.Valid(b) {
		return r, ErrJSON
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return r, fmt.Errorf("%w: %v", ErrJSON, err)
	}
	if v == nil {
		return r, fmt.Errorf("%w: null", ErrJSON)
	}
	if obj, ok := v.(map[string]any); ok {
		r.fields = obj
		r.Type, _ = obj["t"].(string)
	}
	return r, nil
}

// Has reports whether the message is an object with field name.
func (r LobbyRequest) Has(name string) bool {
	_, ok := r.fields[name]
	return ok
}

// T0JSON returns the ping's t0 as JSON, as WebDoom's pong echoes it, or nil
// when the ping had no t0 (the pong then has none either).
func (r LobbyRequest) T0JSON() []byte {
	v, ok := r.fields["t0"]
	if !ok {
		return nil
	}
	return wdAppendJSValue(nil, v)
}

// Name returns the "name" field as String(m.name) (null or absent: the
// empty string) cleaned by CleanName; "" means the color name.
func (r LobbyRequest) Name() string {
	v, ok := r.fields["name"]
	if !ok || v == nil {
		return ""
	}
	return CleanName(wdJSString(v))
}

// SlotChoice returns the slot a 'slot' message asks for (+m.slot) and
// whether it is one of 0..3. WebDoom would also take a fraction; rewind
// requires an integer.
func (r LobbyRequest) SlotChoice() (int, bool) {
	v, ok := r.fields["slot"]
	if !ok {
		return -1, false // +undefined is NaN
	}
	f := wdJSNumber(v)
	if f != math.Trunc(f) || f < 0 || f >= Slots {
		return -1, false
	}
	return int(f), true
}

// JoinSlot returns the slot a 'join' message prefers: the "slot" field when
// it is a JSON number with an integer value 0..3 (Number.isInteger), else -1.
func (r LobbyRequest) JoinSlot() int {
	n, ok := r.fields["slot"].(json.Number)
	if !ok {
		return -1
	}
	f := wdJSNumber(n)
	if f != math.Trunc(f) || f < 0 || f >= Slots {
		return -1
	}
	return int(f)
}

// MergeParams returns cur with a 'params' message's "params" object merged
// over it and clamped as WebDoom does: wad keeps only [a-z0-9_.-]; episode
// 1..9; map 1..32; skill 1..5; mode coop/deathmatch/altdeath (else coop);
// flags by JavaScript truthiness; timer one of 0,5,10,15,20,30 (else 0).
func (r LobbyRequest) MergeParams(cur Params) Params {
	return mergeParams(cur, r.fields["params"])
}
