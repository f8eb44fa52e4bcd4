package gateway_test

import (
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestRefusals sends every kind of bad message: each is answered with its
// error code, never enters the match, and the connection stays (a valid
// input afterwards is scheduled).
func TestRefusals(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{Rate: 1000, Burst: 1000}) // the rate limit: TestRateAndSize
	ctx := timeout(t, 20*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, frame, code string }{
		{"not JSON", `{"protocolVersion":2,`, gateway.CodeInvalidInput},
		{"not an object", `[1,2]`, gateway.CodeInvalidInput},
		{"version 1", `{"protocolVersion":1,"type":"input","payload":{}}`, gateway.CodeIncompatible},
		{"no version", `{"type":"input","payload":{}}`, gateway.CodeIncompatible},
		{"another build", `{"protocolVersion":2,"compatibility":"0000000000000001","type":"input","payload":{}}`, gateway.CodeIncompatible},
		{"compatibility malformed", `{"protocolVersion":2,"compatibility":7,"type":"input","payload":{}}`, gateway.CodeInvalidInput},
		{"version as text", `{"protocolVersion":"2","type":"input","payload":{}}`, gateway.CodeIncompatible},
		{"unknown type", `{"protocolVersion":2,"type":"teleport","payload":{}}`, gateway.CodeInvalidInput},
		{"unknown envelope field", `{"protocolVersion":2,"type":"input","payload":{},"x":1}`, gateway.CodeInvalidInput},
		{"no payload", `{"protocolVersion":2,"type":"input"}`, gateway.CodeInvalidInput},
		{"input field missing", `{"protocolVersion":2,"type":"input","payload":{"sequence":5,"input":{"X":1,"Y":2}}}`, gateway.CodeInvalidInput},
		{"input field unknown", `{"protocolVersion":2,"type":"input","payload":{"sequence":5,"input":{"X":1,"Y":2,"Move":true,"Z":0}}}`, gateway.CodeInvalidInput},
		{"input out of range", `{"protocolVersion":2,"type":"input","payload":{"sequence":5,"input":{"X":5001,"Y":2,"Move":true}}}`, gateway.CodeInvalidInput},
		{"input not integral", `{"protocolVersion":2,"type":"input","payload":{"sequence":5,"input":{"X":1.5,"Y":2,"Move":true}}}`, gateway.CodeInvalidInput},
		{"bool as number", `{"protocolVersion":2,"type":"input","payload":{"sequence":5,"input":{"X":1,"Y":2,"Move":1}}}`, gateway.CodeInvalidInput},
		{"payload field unknown", `{"protocolVersion":2,"type":"input","payload":{"sequence":5,"tick":3,"input":{"X":1,"Y":2,"Move":true}}}`, gateway.CodeInvalidInput},
		{"sequence zero", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":0,"target":{"x":1,"y":1}}}`, gateway.CodeInvalidInput},
		{"sequence negative", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":-3,"target":{"x":1,"y":1}}}`, gateway.CodeInvalidInput},
		{"target out of the field", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":5,"target":{"x":50.01,"y":1}}}`, gateway.CodeInvalidInput},
		{"target overflows", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":5,"target":{"x":1e999,"y":1}}}`, gateway.CodeInvalidInput},
		{"target as text", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":5,"target":{"x":"1","y":1}}}`, gateway.CodeInvalidInput},
		{"target field unknown", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":5,"target":{"x":1,"y":1,"z":0}}}`, gateway.CodeInvalidInput},
		{"target missing", `{"protocolVersion":2,"type":"destination_input","payload":{"sequence":5}}`, gateway.CodeInvalidInput},
		{"resume later", `{"protocolVersion":2,"type":"resume","payload":{"resumeToken":"` + c.init.ResumeToken + `","lastTickId":1}}`, gateway.CodeInvalidInput},
		{"desync of a future tick", `{"protocolVersion":2,"type":"desync","payload":{"tickId":4000000000,"stateHash":"0123456789abcdef"}}`, gateway.CodeInvalidInput},
		{"desync hash malformed", `{"protocolVersion":2,"type":"desync","payload":{"tickId":1,"stateHash":"xyz"}}`, gateway.CodeInvalidInput},
		{"desync of too few pages", `{"protocolVersion":2,"type":"desync","payload":{"tickId":1,"stateHash":"0123456789abcdef","pageHashes":["0123456789abcdef"]}}`, gateway.CodeInvalidInput},
		{"desync page hash malformed", `{"protocolVersion":2,"type":"desync","payload":{"tickId":1,"stateHash":"0123456789abcdef","pageHashes":["0123456789abcdef","0123"]}}`, gateway.CodeInvalidInput},
		{"desync pages not an array", `{"protocolVersion":2,"type":"desync","payload":{"tickId":1,"stateHash":"0123456789abcdef","pageHashes":"0123456789abcdef"}}`, gateway.CodeInvalidInput},
	}
	for _, tc := range cases {
		if err := c.sendRaw(ctx, tc.frame); err != nil {
			t.Fatal(err)
		}
		if code := c.expectError(ctx); code != tc.code {
			t.Errorf("%s: %s, want %s (%s)", tc.name, code, tc.code, c.errors[len(c.errors)-1].Message)
		}
	}
	// A binary frame.
	if err := c.ws.Write(ctx, websocket.MessageBinary, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if code := c.expectError(ctx); code != gateway.CodeInvalidInput {
		t.Errorf("binary frame: %s", code)
	}
	// Sequences: 7 is taken, 7 again and 6 are refused, 8 is taken.
	for _, tc := range []struct {
		seq  uint64
		x    float64
		code string
	}{{7, 1, ""}, {7, 5, gateway.CodeInvalidInput}, {6, 6, gateway.CodeInvalidInput}, {8, 2, ""}} {
		c.seq = tc.seq - 1
		var err error
		if tc.seq == 7 { // with the right compatibility: accepted
			c.seq++
			err = c.sendRaw(ctx, `{"protocolVersion":2,"compatibility":"`+c.init.Compatibility+
				`","type":"destination_input","payload":{"sequence":7,"target":{"x":1,"y":0}}}`)
		} else {
			err = c.goTo(ctx, tc.x, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		if tc.code != "" {
			if code := c.expectError(ctx); code != tc.code {
				t.Errorf("sequence %d again: %s", tc.seq, code)
			}
		}
	}
	// Only sequences 7 and 8 ever enter the match, and the connection
	// stayed through everything.
	var seqs []uint64
	for len(seqs) == 0 || seqs[len(seqs)-1] != 8 {
		mm, err := c.next(ctx, "tick")
		if err != nil {
			t.Fatal(err)
		}
		var tk tickMsg
		_ = jsonUnmarshal(mm.Payload, &tk)
		for _, cm := range tk.Commands {
			seqs = append(seqs, cm.Sequence)
			if cm.Input.X != int32(cm.Sequence-6)*100 {
				t.Fatalf("command %+v: not the input of its sequence", cm)
			}
		}
	}
	if len(seqs) > 2 || (len(seqs) == 2 && seqs[0] != 7) {
		t.Fatalf("sequences scheduled: %v, want 7 and 8 (7 may be overtaken within a tick)", seqs)
	}
}

// TestFull refuses a connection when the match has no free slot: full,
// then the connection closes.
func TestFull(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 1, gateway.Config[walkers.Input]{})
	ctx := timeout(t, 20*time.Second)
	a := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := a.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	b := newJSONClient(t, dial(ctx, t, m.url))
	if code := b.expectError(ctx); code != gateway.CodeFull {
		t.Fatalf("second player: %s", code)
	}
	if _, err := b.read(ctx); websocket.CloseStatus(err) == -1 {
		t.Fatalf("after full: %v, want the connection closed", err)
	}
	if s := m.gw.Stats(); s.Full != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// TestRateAndSize: 20 messages in a second pass, a burst past the limit
// is rate_limited, and a message over the size limit is too_large and
// closes the connection.
func TestRateAndSize(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{})
	ctx := timeout(t, 20*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := c.goTo(ctx, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	for range 40 {
		if err := c.goTo(ctx, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if code := c.expectError(ctx); code != gateway.CodeRateLimited {
		t.Fatalf("a burst of 60: %s", code)
	}
	if n := c.errors; n[0].Code != gateway.CodeRateLimited {
		t.Fatalf("errors %+v", n)
	}
	big := `{"protocolVersion":2,"type":"input","payload":{"sequence":1000,"pad":"` + strings.Repeat("x", 5000) + `"}}`
	_ = c.sendRaw(ctx, big)
	for {
		mm, err := c.read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
				t.Fatalf("after too_large: %v", err)
			}
			break
		}
		_ = c.apply(mm)
	}
	if last := c.errors[len(c.errors)-1]; last.Code != gateway.CodeTooLarge {
		t.Fatalf("last error %+v, want too_large", last)
	}
	// A frame declaring more than 16 times the limit is cut at once,
	// without reading its bytes.
	h := newJSONClient(t, dial(ctx, t, m.url))
	_ = h.sendRaw(ctx, strings.Repeat(" ", 100<<10))
	for {
		if _, err := h.read(ctx); err != nil {
			break
		}
	}
	if s := m.gw.Stats(); s.TooLarge != 2 {
		t.Fatalf("stats %+v: want 2 too_large", s)
	}
}
