package codec_test

import (
	"fmt"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
)

// Input is a game's input: declared once, read once by inputs.NewType.
type Input struct {
	Move int8    `rewind:"min=-50,max=50"`
	Turn int16   //
	Fire bool    //
	Aim  float32 `rewind:"min=-3.5,max=3.5"`
}

// A client packs and sanitizes its input and sends the inputs the server
// has not acknowledged; the server decodes them.
func ExampleClientInputs() {
	it, err := inputs.NewType[Input]()
	if err != nil {
		panic(err)
	}
	var ins [][]byte
	for _, v := range []Input{{Move: 50}, {Move: 50, Turn: 512}, {Move: 99, Turn: 512, Fire: true}} {
		if err := it.SanitizeValue(&v); err != nil { // Move 99 is clamped to 50
			panic(err)
		}
		ins = append(ins, it.Pack(make([]byte, it.Size()), &v))
	}
	m := codec.ClientInputs{Tag: 7, First: 1000, Ack: reliable.Ack{Next: 995}, Count: len(ins),
		Payload: it.AppendInputs(nil, ins)}
	datagram := m.Append(nil)

	// The server's side.
	got, _, err := codec.ParseClientInputs(datagram, 998)
	if err != nil {
		panic(err)
	}
	var dec inputs.Decoder // keep one: decoding then allocates nothing
	dec.Reset(it.Schema, got.Payload, got.Count)
	for dec.Next() {
		var v Input
		it.Unpack(dec.Input(), &v)
		fmt.Printf("tick %d: %+v\n", got.First+uint32(dec.Index()), v)
	}
	fmt.Println(len(datagram), "bytes,", dec.Err())
	// Output:
	// tick 1000: {Move:50 Turn:0 Fire:false Aim:0}
	// tick 1001: {Move:50 Turn:512 Fire:false Aim:0}
	// tick 1002: {Move:50 Turn:512 Fire:true Aim:0}
	// 14 bytes, <nil>
}

// The server encodes each tick's body once; every client decodes it with
// its own TickDecoder.
func ExampleTickEncoder() {
	it, _ := inputs.NewType[Input]()
	enc := codec.NewTickEncoder(it.Schema, 8)
	dec := codec.NewTickDecoder(it.Schema, 8)
	buf := make([]byte, it.Size())

	enc.Join(0)
	enc.Join(1)
	enc.SetInput(0, it.Pack(buf, &Input{Move: 25}))
	body1 := enc.AppendTick(nil, 0xABCDEF) // tick 1: the world hash after it
	enc.SetInput(1, it.Pack(buf, &Input{Turn: -256}))
	enc.SetLate(0) // player 0's input did not arrive: repeated
	body2 := enc.AppendTick(nil, 0x123456)

	var t codec.Tick
	for i, body := range [][]byte{body1, body2} {
		if err := dec.DecodeTick(body, &t); err != nil {
			panic(err)
		}
		var p0, p1 Input
		it.Unpack(dec.Roster().Input(0), &p0)
		it.Unpack(dec.Roster().Input(1), &p1)
		fmt.Printf("tick %d (%d bytes): events %v changed %b late %b hash %#x; p0 %+v p1 %+v\n",
			i+1, len(body), t.Events, t.Changed, t.Late, t.Hash, p0, p1)
	}
	// Output:
	// tick 1 (6 bytes): events [{0 0} {0 1}] changed 1 late 0 hash 0xef; p0 {Move:25 Turn:0 Fire:false Aim:0} p1 {Move:0 Turn:0 Fire:false Aim:0}
	// tick 2 (5 bytes): events [] changed 10 late 1 hash 0x56; p0 {Move:25 Turn:0 Fire:false Aim:0} p1 {Move:0 Turn:-256 Fire:false Aim:0}
}
