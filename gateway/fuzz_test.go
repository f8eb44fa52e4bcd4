package gateway

import (
	"bytes"
	"testing"

	"github.com/rewindnet/rewind/codec/inputs"
)

// fuzzInput is an input of every field kind.
type fuzzInput struct {
	A int8  `rewind:"min=-3,max=3"`
	B int64 `rewind:"enum,min=0,max=5"`
	C uint16
	D uint64
	E float32 `rewind:"min=-1,max=1"`
	F float64
	G bool
}

// FuzzDecode feeds the client message decoder anything: it returns a
// message or an error, never panics, and every input it takes is in
// range (Sanitize leaves it unchanged) and renders as JSON that decodes
// to the same packed bytes; a desync's page hashes are exactly one per
// page of the world.
func FuzzDecode(f *testing.F) {
	it, err := inputs.NewType[fuzzInput]()
	if err != nil {
		f.Fatal(err)
	}
	d := &decoder{schema: it.Schema, destBound: 5000, dest: func(x, y int32) []byte {
		in := fuzzInput{A: int8(x % 4), C: uint16(y)}
		return it.Pack(make([]byte, it.Size()), &in)
	}, pageCount: 3}
	for _, s := range []string{
		`{"protocolVersion":2,"type":"input","payload":{"sequence":1,"input":{"A":-3,"B":"5","C":65535,"D":"18446744073709551615","E":0.5,"F":-1e300,"G":true}}}`,
		`{"protocolVersion":2,"type":"input","payload":{"sequence":9007199254740992,"input":{"A":0,"B":0,"C":0,"D":0,"E":0,"F":0,"G":false}}}`,
		`{"protocolVersion":2,"type":"destination_input","payload":{"sequence":3,"target":{"x":-50,"y":49.999}}}`,
		`{"protocolVersion":2,"type":"resume","payload":{"resumeToken":"0123456789abcdef0123456789abcdef","lastTickId":4294967295}}`,
		`{"protocolVersion":2,"type":"desync","payload":{"tickId":7,"stateHash":"00ff00ff00ff00ff"}}`,
		`{"protocolVersion":2,"type":"desync","payload":{"tickId":7,"stateHash":"00ff00ff00ff00ff","pageHashes":["0000000000000000","ffffffffffffffff","0123456789abcdef"]}}`,
		`{"protocolVersion":2,"type":"desync","payload":{"tickId":7,"stateHash":"00ff00ff00ff00ff","pageHashes":[]}}`,
		`{"protocolVersion":2,"type":"desync","payload":{"tickId":7,"stateHash":"00ff00ff00ff00ff","pageHashes":null}}`,
		`{"protocolVersion":1,"type":"input","payload":{}}`,
		`{"protocolVersion":2,"type":"input","payload":{"sequence":1e2,"input":{"A":1e0}}}`,
		`[]`, `null`, `{`, `{"protocolVersion":2,"type":"input","payload":{"sequence":1,"input":{"A":1,"A":2}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, perr := d.decode(b)
		if perr != nil {
			if perr.code != CodeInvalidInput && perr.code != CodeIncompatible {
				t.Fatalf("code %q", perr.code)
			}
			return
		}
		if m.kind == msgDesync && m.pages != nil && len(m.pages) != d.pageCount {
			t.Fatalf("a desync of %d page hashes, the world has %d pages", len(m.pages), d.pageCount)
		}
		if m.kind != msgInput {
			return
		}
		if len(m.input) != it.Size() {
			t.Fatalf("packed input of %d bytes", len(m.input))
		}
		san := append([]byte(nil), m.input...)
		if err := it.Sanitize(san); err != nil || !bytes.Equal(san, m.input) {
			t.Fatalf("input out of range: %x (sanitized %x, %v)", m.input, san, err)
		}
		js := appendInput(nil, it.Schema, m.input)
		env := []byte(`{"protocolVersion":2,"type":"input","payload":{"sequence":1,"input":` + string(js) + `}}`)
		m2, perr := d.decode(env)
		if perr != nil || !bytes.Equal(m2.input, m.input) {
			t.Fatalf("rendered input %s decodes to %x (%v), want %x", js, m2.input, perr, m.input)
		}
	})
}
