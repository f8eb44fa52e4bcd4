package gateway

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
)

// envelope starts a server message of type typ: everything up to the
// payload's opening brace.
func envelope(dst []byte, typ string) []byte {
	dst = append(dst, `{"protocolVersion":2,"type":"`...)
	dst = append(dst, typ...)
	return append(dst, `","payload":{`...)
}

// appendHex appends v as 16 lowercase hex digits in quotes.
func appendHex(dst []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 60; i >= 0; i -= 4 {
		dst = append(dst, digits[v>>uint(i)&15])
	}
	return append(dst, '"')
}

// errorMessage returns an error message.
func errorMessage(code, msg string) []byte {
	b := envelope(nil, "error")
	b = append(b, `"code":"`...)
	b = append(b, code...)
	b = append(b, `","message":`...)
	m, _ := json.Marshal(msg) // a string always marshals
	b = append(b, m...)
	return append(b, "}}"...)
}

// initialState is what an initial_state message says.
type initialState struct {
	tick       uint32
	player     game.PlayerID
	rate       int
	delay      int
	compat     uint64
	layoutHash uint64
	stateHash  uint64
	state      []byte // the world's JSON (world.AppendJSON)
	world      []byte // the world's binary encoding (world.AppendWorld)
	token      string
	inputs     []command // every present player's input not zero
	present    uint64    // the players in the match (bit p for player p)
}

// appendInitial appends an initial_state message.
func appendInitial(dst []byte, sch *inputs.Schema, s *initialState) []byte {
	dst = envelope(dst, "initial_state")
	dst = append(dst, `"snapshotTick":`...)
	dst = strconv.AppendUint(dst, uint64(s.tick), 10)
	dst = append(dst, `,"playerId":`...)
	dst = strconv.AppendUint(dst, uint64(s.player), 10)
	dst = append(dst, `,"tickDurationMs":`...)
	dst = strconv.AppendFloat(dst, math.Round(1e6/float64(s.rate))/1e3, 'f', -1, 64)
	dst = append(dst, `,"tickRate":`...)
	dst = strconv.AppendInt(dst, int64(s.rate), 10)
	dst = append(dst, `,"inputDelayTicks":`...)
	dst = strconv.AppendInt(dst, int64(s.delay), 10)
	dst = append(dst, `,"compatibility":`...)
	dst = appendHex(dst, s.compat)
	dst = append(dst, `,"layoutHash":`...)
	dst = appendHex(dst, s.layoutHash)
	dst = append(dst, `,"stateHash":`...)
	dst = appendHex(dst, s.stateHash)
	dst = appendPlayers(dst, sch, s.inputs, s.present)
	dst = append(dst, `,"state":`...)
	dst = append(dst, s.state...)
	dst = append(dst, `,"world":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, s.world)
	dst = append(dst, `","resumeToken":"`...)
	dst = append(dst, s.token...)
	return append(dst, `"}}`...)
}

// appendPlayers appends `,"players":[…],"inputs":[…]`: the players
// present (bit p of present for player p) and every input of cmds.
func appendPlayers(dst []byte, sch *inputs.Schema, cmds []command, present uint64) []byte {
	dst = append(dst, `,"players":[`...)
	n := 0
	for p := range game.MaxPlayers {
		if present&(1<<p) != 0 {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = strconv.AppendInt(dst, int64(p), 10)
		}
	}
	dst = append(dst, `],"inputs":[`...)
	for i, c := range cmds {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"playerId":`...)
		dst = strconv.AppendUint(dst, uint64(c.player), 10)
		dst = append(dst, `,"input":`...)
		dst = appendInput(dst, sch, c.input)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// command is one input the server scheduled into a tick.
type command struct {
	player game.PlayerID
	seq    uint64 // the JSON player's sequence; 0 for other players
	input  []byte // packed
}

// appendTick appends a tick message: its commands and events (rendered
// before, by appendBody) and the world hash after it.
func appendTick(dst []byte, tick uint32, body []byte, hash uint64) []byte {
	dst = envelope(dst, "tick")
	dst = append(dst, `"tickId":`...)
	dst = strconv.AppendUint(dst, uint64(tick), 10)
	dst = append(dst, body...)
	dst = append(dst, `,"stateHash":`...)
	dst = appendHex(dst, hash)
	return append(dst, "}}"...)
}

// appendBody appends a tick's `,"commands":[…]` and, when there are
// any, `,"events":[…]`.
func appendBody(dst []byte, s *inputs.Schema, cmds []command, events []game.Event) []byte {
	dst = append(dst, `,"commands":[`...)
	for i, c := range cmds {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"playerId":`...)
		dst = strconv.AppendUint(dst, uint64(c.player), 10)
		dst = append(dst, `,"sequence":`...)
		dst = strconv.AppendUint(dst, c.seq, 10)
		dst = append(dst, `,"input":`...)
		dst = appendInput(dst, s, c.input)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if len(events) == 0 {
		return dst
	}
	dst = append(dst, `,"events":[`...)
	for i, e := range events {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"playerId":`...)
		dst = strconv.AppendUint(dst, uint64(e.Player), 10)
		dst = append(dst, `,"kind":"`...)
		dst = append(dst, e.Kind.String()...)
		dst = append(dst, `"}`...)
	}
	return append(dst, ']')
}

// appendInput appends the packed input p as a JSON object, its fields by
// name (64-bit integers as decimal strings).
func appendInput(dst []byte, s *inputs.Schema, p []byte) []byte {
	dst = append(dst, '{')
	for i := range s.NumFields() {
		f := s.Field(i)
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, f.Name...) // a Go identifier: no escaping
		dst = append(dst, `":`...)
		var bits uint64
		for j := range f.Width {
			bits |= uint64(p[f.Offset+j]) << (8 * j)
		}
		switch f.Kind {
		case inputs.FieldBool:
			dst = strconv.AppendBool(dst, bits != 0)
		case inputs.FieldInt:
			v := int64(bits<<(64-8*f.Width)) >> (64 - 8*f.Width)
			if f.Width == 8 {
				dst = append(dst, '"')
				dst = strconv.AppendInt(dst, v, 10)
				dst = append(dst, '"')
			} else {
				dst = strconv.AppendInt(dst, v, 10)
			}
		case inputs.FieldUint:
			if f.Width == 8 {
				dst = append(dst, '"')
				dst = strconv.AppendUint(dst, bits, 10)
				dst = append(dst, '"')
			} else {
				dst = strconv.AppendUint(dst, bits, 10)
			}
		case inputs.FieldFloat:
			if f.Width == 4 {
				dst = strconv.AppendFloat(dst, float64(math.Float32frombits(uint32(bits))), 'g', -1, 32)
			} else {
				dst = strconv.AppendFloat(dst, math.Float64frombits(bits), 'g', -1, 64)
			}
		}
	}
	return append(dst, '}')
}
