package server_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
)

// FuzzServerDatagram feeds arbitrary datagrams to a running server, from a
// welcomed player's address and from a stranger's: the server must not
// panic, must count what it drops, and must keep ticking.
func FuzzServerDatagram(f *testing.F) {
	it, err := inputs.NewType[testgame.Input]()
	if err != nil {
		f.Fatal(err)
	}
	in := testgame.Input{DX: 1, Fire: true}
	p := it.Pack(make([]byte, it.Size()), &in)
	ci := codec.ClientInputs{Tag: 1, First: 1, Ack: reliable.Ack{Next: 1, Mask: 5}, Count: 2, Payload: it.AppendInputs(nil, [][]byte{p, p})}
	for _, m := range []interface{ Append([]byte) []byte }{
		&codec.Hello{Game: 1},
		&ci,
		&codec.Ping{Tag: 1, ID: 3, Time: 99},
		&codec.Bye{Tag: 1},
		&codec.ServerTicks{Tag: 1, First: 2, Ticks: []codec.TickBody{{Tick: 2, Body: []byte{0}}}},
		&codec.WorldAck{Tag: 1, Transfer: 1 << 16, Ack: reliable.Ack{Next: 1}},
		&codec.PageHashRequest{Tag: 1, Tick: 1, First: 0, Count: 3},
		&codec.PageRequest{Tag: 1, Tick: 1, Transfer: 9, Pages: []uint32{0, 2}},
		&codec.PageRequest{Tag: 1, Tick: 0, Transfer: 10, Whole: true},
		&codec.Chat{Tag: 1, Ack: reliable.Ack{Next: 1}, Messages: []codec.ChatMessage{{Seq: 1, Kind: codec.ChatName, Text: []byte("ann")}, {Seq: 2, Kind: codec.ChatText, Text: []byte("hi")}}},
	} {
		f.Add(m.Append(nil))
	}
	f.Add([]byte{0x13, 1, 0xFF, 0xFF, 0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1200 {
			return
		}
		r := newRig(t, server.Config{StartPlayers: 1})
		a, x := r.peer("a"), r.peer("x")
		w := r.join(a)
		if w.Tag != 1 {
			t.Fatalf("first tag %d, the seeds assume 1", w.Tag)
		}
		r.run(50 * time.Millisecond)
		_ = a.Send("sim:server", b)
		_ = x.Send("sim:server", b)
		r.run(50 * time.Millisecond)
		if st := r.srv.Stats(); st.Tick < 5 {
			t.Fatalf("the match stopped: %+v", st)
		}
	})
}
