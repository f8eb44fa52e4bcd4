package gateway

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/rewindnet/rewind/codec/inputs"
)

// ProtocolVersion is the version of the JSON protocol the gateway speaks
// (envelopes of any other are refused as incompatible).
const ProtocolVersion = 2

// msgKind is the type of a client message.
type msgKind uint8

const (
	msgInput  msgKind = iota + 1 // input or destination_input
	msgResume                    // resume
	msgDesync                    // desync
)

// clientMsg is one decoded, validated client message.
type clientMsg struct {
	kind     msgKind
	seq      uint64 // input: the sequence
	input    []byte // input: the packed input, in range
	token    string // resume: the resume token
	lastTick uint32 // resume: the last tick the client applied
	tickID   uint32 // desync: the tick whose hash differed
	hash     uint64 // desync: the client's hash
	// pages is a desync's page hashes of the client's world after tickID
	// (World.PageHashes; nil: a bare desync, answered with a whole world).
	pages []uint64
}

// decoder decodes client messages against a game's input schema.
type decoder struct {
	schema *inputs.Schema
	// dest, if set, packs a destination in whole centimetres (both within
	// ±destBound) into an input; without it destination_input is refused.
	dest      func(x, y int32) []byte
	destBound int32
	// compat is the game's compatibility fingerprint: a message that
	// names another one is refused as incompatible.
	compat uint64
	// pageCount is the number of pages of the game's world: a desync's
	// pageHashes must list that many.
	pageCount int
}

// maxSafe is the largest integer a JSON number carries exactly (2⁵³).
const maxSafe = 1 << 53

func invalid(format string, a ...any) *protoError {
	return &protoError{code: CodeInvalidInput, msg: fmt.Sprintf(format, a...)}
}

// decode parses one client message. It never panics; its allocation is
// bounded by the message's length (the caller bounds that).
func (d *decoder) decode(b []byte) (clientMsg, *protoError) {
	var m clientMsg
	env, err := object(b, "message")
	if err != nil {
		return m, err
	}
	if err := only(env, "message", "protocolVersion", "type", "payload", "compatibility"); err != nil {
		return m, err
	}
	v, ok := env["protocolVersion"]
	if !ok {
		return m, &protoError{code: CodeIncompatible, msg: "no protocolVersion (this server speaks 2)"}
	}
	if n, err := integer(v, "protocolVersion", 0, math.MaxUint32); err != nil || n != ProtocolVersion {
		return m, &protoError{code: CodeIncompatible, msg: fmt.Sprintf("protocolVersion %s: this server speaks 2", v)}
	}
	if raw, ok := env["compatibility"]; ok {
		var c string
		if err := json.Unmarshal(raw, &c); err != nil {
			return m, invalid("compatibility: want 16 hex digits")
		}
		v, err := hex64(c, "compatibility")
		if err != nil {
			return m, err
		}
		if v != d.compat {
			return m, &protoError{code: CodeIncompatible, msg: fmt.Sprintf("compatibility %016x: this match plays %016x (another build of the game)", v, d.compat)}
		}
	}
	var typ string
	if err := json.Unmarshal(env["type"], &typ); err != nil || env["type"] == nil {
		return m, invalid("type: want a string")
	}
	pl, perr := object(env["payload"], "payload")
	if perr != nil {
		return m, perr
	}
	switch typ {
	case "input":
		return d.input(pl)
	case "destination_input":
		return d.destination(pl)
	case "resume":
		return resume(pl)
	case "desync":
		return d.desync(pl)
	}
	return m, invalid("unknown type %q", typ)
}

// input decodes an input payload: {sequence, input}.
func (d *decoder) input(pl map[string]json.RawMessage) (clientMsg, *protoError) {
	m := clientMsg{kind: msgInput}
	if err := only(pl, "payload", "sequence", "input"); err != nil {
		return m, err
	}
	seq, err := integer(pl["sequence"], "sequence", 1, maxSafe)
	if err != nil {
		return m, err
	}
	in, err := object(pl["input"], "input")
	if err != nil {
		return m, err
	}
	m.seq = uint64(seq)
	m.input, err = d.pack(in)
	return m, err
}

// destination decodes a destination_input payload: {sequence, target: {x,
// y}} in metres, normalized to whole centimetres.
func (d *decoder) destination(pl map[string]json.RawMessage) (clientMsg, *protoError) {
	m := clientMsg{kind: msgInput}
	if d.dest == nil {
		return m, invalid("this game's input is not a destination: send type input")
	}
	if err := only(pl, "payload", "sequence", "target"); err != nil {
		return m, err
	}
	seq, err := integer(pl["sequence"], "sequence", 1, maxSafe)
	if err != nil {
		return m, err
	}
	t, err := object(pl["target"], "target")
	if err != nil {
		return m, err
	}
	if err := only(t, "target", "x", "y"); err != nil {
		return m, err
	}
	bound := float64(d.destBound) / 100
	x, err := number(t["x"], "target.x", -bound, bound)
	if err != nil {
		return m, err
	}
	y, err := number(t["y"], "target.y", -bound, bound)
	if err != nil {
		return m, err
	}
	m.seq = uint64(seq)
	m.input = d.dest(int32(math.Round(x*100)), int32(math.Round(y*100)))
	return m, nil
}

// pack validates an input object against the schema (every field present,
// in range, no other) and returns its packed form.
func (d *decoder) pack(in map[string]json.RawMessage) ([]byte, *protoError) {
	s := d.schema
	if len(in) > s.NumFields() {
		for k := range in {
			if !hasField(s, k) {
				return nil, invalid("input: unknown field %q", k)
			}
		}
	}
	p := make([]byte, s.Size())
	for i := range s.NumFields() {
		f := s.Field(i)
		raw, ok := in[f.Name]
		if !ok {
			return nil, invalid("input: field %s missing", f.Name)
		}
		name := "input." + f.Name
		var bits uint64
		switch f.Kind {
		case inputs.FieldBool:
			var v bool
			if string(raw) != "true" && string(raw) != "false" {
				return nil, invalid("%s: want true or false", name)
			}
			if v = string(raw) == "true"; v {
				bits = 1
			}
		case inputs.FieldInt:
			v, err := integer64(raw, name, f.Width == 8, f.IntMin, f.IntMax)
			if err != nil {
				return nil, err
			}
			bits = uint64(v)
		case inputs.FieldUint:
			v, err := uinteger64(raw, name, f.Width == 8, f.UintMin, f.UintMax)
			if err != nil {
				return nil, err
			}
			bits = v
		case inputs.FieldFloat:
			v, err := number(raw, name, f.FloatMin, f.FloatMax)
			if err != nil {
				return nil, err
			}
			if f.Width == 4 {
				bits = uint64(math.Float32bits(float32(v)))
			} else {
				bits = math.Float64bits(v)
			}
		}
		for j := range f.Width {
			p[f.Offset+j] = byte(bits >> (8 * j))
		}
	}
	return p, nil
}

func hasField(s *inputs.Schema, name string) bool {
	for i := range s.NumFields() {
		if s.FieldName(i) == name {
			return true
		}
	}
	return false
}

// resume decodes {resumeToken, lastTickId}.
func resume(pl map[string]json.RawMessage) (clientMsg, *protoError) {
	m := clientMsg{kind: msgResume}
	if err := only(pl, "payload", "resumeToken", "lastTickId"); err != nil {
		return m, err
	}
	if err := json.Unmarshal(pl["resumeToken"], &m.token); err != nil || pl["resumeToken"] == nil || len(m.token) != 32 {
		return m, invalid("resumeToken: want the 32 hex digits initial_state gave")
	}
	t, err := integer(pl["lastTickId"], "lastTickId", 0, math.MaxUint32)
	if err != nil {
		return m, err
	}
	m.lastTick = uint32(t)
	return m, nil
}

// desync decodes {tickId, stateHash} and, from a client that can take
// pages, pageHashes: one hash (16 hex digits) for each of the world's
// pages.
func (d *decoder) desync(pl map[string]json.RawMessage) (clientMsg, *protoError) {
	m := clientMsg{kind: msgDesync}
	if err := only(pl, "payload", "tickId", "stateHash", "pageHashes"); err != nil {
		return m, err
	}
	t, err := integer(pl["tickId"], "tickId", 0, math.MaxUint32)
	if err != nil {
		return m, err
	}
	m.tickID = uint32(t)
	var h string
	if err := json.Unmarshal(pl["stateHash"], &h); err != nil || pl["stateHash"] == nil {
		return m, invalid("stateHash: want 16 hex digits")
	}
	if m.hash, err = hex64(h, "stateHash"); err != nil {
		return m, err
	}
	if raw, ok := pl["pageHashes"]; ok {
		m.pages, err = d.pageHashes(raw)
	}
	return m, err
}

// pageHashes decodes a desync's pageHashes: an array of exactly
// pageCount strings of 16 hex digits.
func (d *decoder) pageHashes(raw json.RawMessage) ([]uint64, *protoError) {
	var hs []string
	if err := json.Unmarshal(raw, &hs); err != nil || hs == nil {
		return nil, invalid("pageHashes: want an array of strings of 16 hex digits")
	}
	if len(hs) != d.pageCount {
		return nil, invalid("pageHashes: %d hashes, want %d (one per page of the world)", len(hs), d.pageCount)
	}
	out := make([]uint64, len(hs))
	for i, h := range hs {
		v, err := hex64(h, "pageHashes["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// hex64 parses 16 lowercase hex digits.
func hex64(s, name string) (uint64, *protoError) {
	var b [8]byte
	if len(s) != 16 {
		return 0, invalid("%s: want 16 hex digits", name)
	}
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		return 0, invalid("%s: want 16 hex digits", name)
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v, nil
}

// object parses raw as a JSON object (exact keys; the last of duplicates
// wins).
func object(raw json.RawMessage, name string) (map[string]json.RawMessage, *protoError) {
	if raw == nil {
		return nil, invalid("%s missing", name)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, invalid("%s: want a JSON object", name)
	}
	return m, nil
}

// only refuses a key of m not among keys.
func only(m map[string]json.RawMessage, name string, keys ...string) *protoError {
	for k := range m {
		known := false
		for _, want := range keys {
			known = known || k == want
		}
		if !known {
			return invalid("%s: unknown field %q", name, k)
		}
	}
	return nil
}

// integer parses raw as a JSON number holding an integer in [lo, hi]
// (|hi|, |lo| ≤ 2⁵³).
func integer(raw json.RawMessage, name string, lo, hi int64) (int64, *protoError) {
	return integer64(raw, name, false, lo, hi)
}

// integer64 parses raw as an integer in [lo, hi]: a JSON number, or with
// str a decimal string too (64-bit fields).
func integer64(raw json.RawMessage, name string, str bool, lo, hi int64) (int64, *protoError) {
	s, err := numText(raw, name, str)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > maxSafe {
			return 0, invalid("%s: want an integer in [%d, %d]", name, lo, hi)
		}
		v = int64(f)
	}
	if v < lo || v > hi {
		return 0, invalid("%s = %d: want [%d, %d]", name, v, lo, hi)
	}
	return v, nil
}

// uinteger64 is integer64 for unsigned fields.
func uinteger64(raw json.RawMessage, name string, str bool, lo, hi uint64) (uint64, *protoError) {
	s, err := numText(raw, name, str)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseUint(s, 10, 64)
	if perr != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || f < 0 || f > maxSafe {
			return 0, invalid("%s: want an integer in [%d, %d]", name, lo, hi)
		}
		v = uint64(f)
	}
	if v < lo || v > hi {
		return 0, invalid("%s = %d: want [%d, %d]", name, v, lo, hi)
	}
	return v, nil
}

// numText returns the text of a JSON number (or, with str, of a JSON
// string holding a decimal integer).
func numText(raw json.RawMessage, name string, str bool) (string, *protoError) {
	if raw == nil {
		return "", invalid("%s missing", name)
	}
	if str && len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || s == "" || len(s) > 21 {
			return "", invalid("%s: want an integer", name)
		}
		for i, c := range s {
			if (c < '0' || c > '9') && !(i == 0 && c == '-') {
				return "", invalid("%s: want an integer", name)
			}
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil || len(raw) == 0 || raw[0] == '"' {
		return "", invalid("%s: want a number", name)
	}
	return string(n), nil
}

// number parses raw as a finite JSON number in [lo, hi].
func number(raw json.RawMessage, name string, lo, hi float64) (float64, *protoError) {
	s, err := numText(raw, name, false)
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseFloat(s, 64)
	if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, invalid("%s: want a finite number", name)
	}
	if f < lo || f > hi {
		return 0, invalid("%s = %g: want [%g, %g]", name, f, lo, hi)
	}
	return f, nil
}
