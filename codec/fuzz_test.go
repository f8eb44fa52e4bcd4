package codec

import (
	"bytes"
	"testing"

	"github.com/rewindnet/rewind/codec/reliable"
)

// Every decoder of network bytes has a fuzz target here, seeded with valid
// encodings. Each checks that the decoder never panics and that whatever it
// accepts re-encodes to exactly the bytes it consumed (one encoding per
// value), with Length() agreeing.

func fuzzMessage[M any](f *testing.F, seeds []M, parse func([]byte) (M, int, error)) {
	for i := range seeds {
		f.Add(any(&seeds[i]).(message).Append(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := parse(b)
		if err != nil {
			return
		}
		if n < 0 || n > len(b) {
			t.Fatalf("consumed %d of %d", n, len(b))
		}
		mm := any(&m).(message)
		out := mm.Append(nil)
		if !bytes.Equal(out, b[:n]) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", b[:n], out)
		}
		if mm.Length() != len(out) {
			t.Fatalf("Length %d != %d", mm.Length(), len(out))
		}
	})
}

func FuzzParseHello(f *testing.F) {
	fuzzMessage(f, []Hello{{Game: 5}, {Game: 1 << 60, HasCookie: true, Cookie: [16]byte{1, 2}},
		{Game: 9, HasCookie: true, HasRoom: true, Room: [MaxRoomCodeSize]byte{'K', '3', 'F', '9', 'Q', 'X'}}, {Game: 3, HostSettings: true},
		{Game: 4, HasRoom: true, RoomLen: 7, Room: [MaxRoomCodeSize]byte{'K', '3', 'F', '9', 'Q', 'X', 'Z'}, Spectator: true, Delay: 9},
		{Game: 4, HasCookie: true, HasRoom: true, RoomLen: 12, Room: [MaxRoomCodeSize]byte{'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K', 'L', 'M'}}}, ParseHello)
}

func FuzzParseWelcome(f *testing.F) {
	fuzzMessage(f, []Welcome{{Player: 2, Tag: 9, Tick: 77, HashBits: 8, TickRate: 60, Transfer: 1, Roster: []byte{1, 2, 3},
		Game: 0xfeed, Settings: []byte{1, 0x80, 2, 60}}}, ParseWelcome)
}

func FuzzParseRefuse(f *testing.F) {
	fuzzMessage(f, []Refuse{{Reason: ReasonFull}, {Reason: ReasonCookie}, {Reason: ReasonGame, Game: "ships"}}, ParseRefuse)
}

func FuzzParseBye(f *testing.F) {
	fuzzMessage(f, []Bye{{Tag: 1, Reason: ReasonTimeout}, NewBye(2, ReasonEnded), NewBye(3, ReasonMigrate),
		{Tag: 4, Reason: ReasonShutdown, Detail: ReasonEnded, HasLast: true, Last: 3600},
		{Tag: 4, Reason: ReasonShutdown, Detail: ReasonEnded, HasLast: true, Last: 77, Operator: true}}, ParseBye)
}

func FuzzParseHandover(f *testing.F) {
	fuzzMessage(f, []Handover{testHandover(), {TickRate: 60}}, ParseHandover)
}

func FuzzParseWaiting(f *testing.F) {
	fuzzMessage(f, []Waiting{{Tag: 1, Tick: 300, Players: 5}}, ParseWaiting)
}

func FuzzParseChat(f *testing.F) {
	fuzzMessage(f, []Chat{{Tag: 1, Ack: reliable.Ack{Next: 3, Mask: 5}, Messages: []ChatMessage{{Seq: 1, Kind: ChatName, Text: []byte("ann")}, {Seq: 2, From: 3, Kind: ChatText, Text: []byte("hi")}, {Seq: 3, From: 1, Kind: ChatGame, Text: []byte{4, 1, 2}}}}}, ParseChat)
}

func FuzzParsePing(f *testing.F) {
	fuzzMessage(f, []Ping{{Tag: 1, ID: 300, Time: 12345}}, ParsePing)
}

func FuzzParsePong(f *testing.F) {
	fuzzMessage(f, []Pong{{Tag: 1, ID: 3, Time: 1}}, ParsePong)
}

func FuzzParseWorldChunk(f *testing.F) {
	fuzzMessage(f, []WorldChunk{{Tag: 1, Transfer: 2, Tick: 3, Index: 1, Count: 3, Offset: 100, Total: 300, Data: bytes.Repeat([]byte{7}, 100)}}, ParseWorldChunk)
}

func FuzzParseWorldAck(f *testing.F) {
	fuzzMessage(f, []WorldAck{{Tag: 1, Transfer: 2, Ack: reliable.Ack{Next: 5, Mask: 3}}}, ParseWorldAck)
}

func FuzzParsePageHashRequest(f *testing.F) {
	fuzzMessage(f, []PageHashRequest{{Tag: 1, Tick: 9, First: 4, Count: 10}}, ParsePageHashRequest)
}

func FuzzParsePageHashes(f *testing.F) {
	fuzzMessage(f, []PageHashes{{Tag: 1, Tick: 9, First: 4, Total: 10, Hashes: []uint64{1, 2, 3}}}, ParsePageHashes)
}

func FuzzParsePageRequest(f *testing.F) {
	fuzzMessage(f, []PageRequest{{Tag: 1, Tick: 9, Transfer: 3, Pages: []uint32{1, 5, 900}}, {Tag: 2, Tick: 4, Transfer: 1, Whole: true}}, ParsePageRequest)
}

func FuzzPeek(f *testing.F) {
	f.Add((&Hello{Game: 1}).Append(nil))
	f.Add((&Bye{Tag: 4}).Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		typ, tag, err := Peek(b)
		if err != nil {
			return
		}
		if typ.String() == "" || (typ >= TypeHello && tag != 0) {
			t.Fatalf("type %v tag %d", typ, tag)
		}
	})
}

// FuzzParseClientInputs parses a ClientInputs datagram and decodes its
// inputs, as the server does with every datagram a client sends.
func FuzzParseClientInputs(f *testing.F) {
	it, ins := testInputs(f, 12)
	for _, n := range []int{0, 1, 12} {
		m := ClientInputs{Tag: 3, First: 500, Ack: reliable.Ack{Next: 490, Mask: 6}, Count: n, Payload: it.AppendInputs(nil, ins[:n])}
		f.Add(m.Append(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := ParseClientInputs(b, 500)
		if err != nil {
			return
		}
		if out := m.Append(nil); !bytes.Equal(out, b[:n]) || m.Length() != len(out) {
			t.Fatalf("re-encoding differs")
		}
		var got [][]byte
		err = it.DecodeInputs(nil, m.Payload, m.Count, func(i int, in []byte) error {
			got = append(got, append([]byte{}, in...))
			return nil
		})
		if err != nil {
			return
		}
		// Accepted inputs are sanitized.
		for _, in := range got {
			c := append([]byte{}, in...)
			if it.Sanitize(c) != nil || !bytes.Equal(c, in) {
				t.Fatal("decoded input not sanitized")
			}
		}
	})
}

// FuzzParseServerTicks parses a ServerTicks datagram and decodes its ticks
// with a roster in the middle of a match, as a client does; whatever
// decodes must re-encode to the same body.
func FuzzParseServerTicks(f *testing.F) {
	it, _, bodies, _, _ := randomMatch(f, 21, 60, 8)
	dec := NewTickDecoder(it.Schema, 8)
	var tk Tick
	for _, b := range bodies[:40] {
		if err := dec.DecodeTick(b, &tk); err != nil {
			f.Fatal(err)
		}
	}
	snap := dec.Roster().AppendSnapshot(nil)
	for i := 40; i < 45; i++ {
		m := ServerTicks{Tag: 1, First: uint32(i), Ack: reliable.Ack{Next: uint32(i + 3)}, Ticks: []TickBody{{uint32(i), bodies[i]}}}
		f.Add(m.Append(nil))
	}
	m := ServerTicks{Tag: 1, First: 40, Ack: reliable.Ack{Next: 50, Mask: 1}, HasMargin: true, Margin: -3,
		Ticks: []TickBody{{40, bodies[40]}, {41, bodies[41]}, {42, bodies[42]}}}
	f.Add(m.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := ParseServerTicks(b, 40)
		if err != nil {
			return
		}
		if out := m.Append(nil); !bytes.Equal(out, b[:n]) || m.Length() != len(out) {
			t.Fatalf("re-encoding differs")
		}
		d := NewTickDecoder(it.Schema, 8)
		if err := d.Roster().ParseSnapshot(snap); err != nil {
			t.Fatal(err)
		}
		tk := Tick{Events: make([]Event, 0, MaxEvents)}
		for _, body := range m.Ticks {
			before := NewRoster(it.Schema)
			before.CopyFrom(d.Roster())
			if err := d.DecodeTick(body.Body, &tk); err != nil {
				return
			}
			// Re-encode from the roster before the tick.
			e := NewTickEncoder(it.Schema, 8)
			e.roster.CopyFrom(before)
			for _, ev := range tk.Events {
				if ev.Kind == EventJoin {
					err = e.Join(ev.Player)
				} else {
					err = e.Leave(ev.Player)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			for p := uint8(0); p < MaxPlayers; p++ {
				if tk.Changed.Has(p) {
					if err := e.SetInput(p, d.Roster().Input(p)); err != nil {
						t.Fatal(err)
					}
				}
				if tk.Late.Has(p) {
					e.SetLate(p)
				}
			}
			if out := e.AppendTick(nil, tk.Hash); !bytes.Equal(out, body.Body) {
				t.Fatalf("tick body re-encodes differently:\n in %x\nout %x", body.Body, out)
			}
		}
	})
}

func FuzzRosterSnapshot(f *testing.F) {
	it, _, bodies, _, _ := randomMatch(f, 5, 50, 8)
	dec := NewTickDecoder(it.Schema, 8)
	var tk Tick
	for _, b := range bodies {
		dec.DecodeTick(b, &tk)
		f.Add(dec.Roster().AppendSnapshot(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewRoster(it.Schema)
		if err := r.ParseSnapshot(b); err != nil {
			return
		}
		if out := r.AppendSnapshot(nil); !bytes.Equal(out, b) {
			t.Fatal("snapshot re-encodes differently")
		}
	})
}

func FuzzParseModuleRequest(f *testing.F) {
	fuzzMessage(f, []ModuleRequest{{Tag: 1, Sum: [32]byte{1, 31: 2}, First: 0, Mask: 1}, {Tag: 9, First: 1 << 14, Mask: 1<<64 - 1}}, ParseModuleRequest)
}

func FuzzParseModuleChunk(f *testing.F) {
	fuzzMessage(f, []ModuleChunk{{Tag: 1, Index: 0, Total: 3, Data: []byte{0, 0x61, 0x73}},
		{Tag: 2, Index: 1, Total: ModuleChunkData + 2, Data: []byte{4, 5}}}, ParseModuleChunk)
}
