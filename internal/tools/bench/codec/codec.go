// Package codec is `rewind-bench codec`: the rollback wire format's
// input coding and tick sizes over DOOM demos (each demo's tics are a
// player's inputs): bytes per player-tick against a byte-aligned varint
// baseline, encode and decode times, an exact round trip through
// datagrams, and wire bytes per second over a lossy link model under
// codec's two Resender policies.
package codec

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	rwcodec "github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/tools/doomdemo"
)

// Config is what bench codec measures.
type Config struct {
	// Dir is the directory of DOOM 1.9 demos (*.lmp).
	Dir string
	// MinTime is the minimum time of each timing.
	MinTime time.Duration
	// Log gets the progress lines (nil: none).
	Log io.Writer
}

// Result is bench codec's figures.
type Result struct {
	// Demos is the number of demos, PlayerTicks the player-ticks of the
	// match they make.
	Demos, PlayerTicks int
	// InputBytes and InputBytesYaw are the input payload per
	// player-tick, without and with the float yaw; Baseline is a
	// byte-aligned varint coding's.
	InputBytes, InputBytesYaw, Baseline float64
	// TickBytes is one fresh tick's datagram per client, TickBytes4 over
	// the ticks with 4 players, TickBytesYaw with the yaw.
	TickBytes, TickBytes4, TickBytesYaw float64
	// RoundTrip and RoundTripYaw are the round trips' errors (nil: exact).
	RoundTrip, RoundTripYaw error
	// Encode and Decode are ns per player-tick, without and with the yaw.
	Encode, Decode, EncodeYaw, DecodeYaw float64
	// Allocs is the allocations per player-tick of the four timings.
	Allocs float64
	// All and Selective are the link model's figures under codec's
	// Resender default and its Selective policy.
	All, Selective Link
}

// Link is the link model's figures.
type Link struct {
	// Down and Up are bytes per second per client.
	Down, Up float64
	// LateFrac is the fraction of ticks applicable later than on a
	// lossless link; MeanLate their mean extra delay, Worst the worst.
	LateFrac        float64
	MeanLate, Worst time.Duration
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	return []any{
		"demos", r.Demos,
		"player_ticks", r.PlayerTicks,
		"input_bytes_per_player_tick", fmt.Sprintf("%.3f", r.InputBytes),
		"input_bytes_per_player_tick_with_yaw", fmt.Sprintf("%.3f", r.InputBytesYaw),
		"tick_bytes_per_client", fmt.Sprintf("%.2f", r.TickBytes),
		"encode_ns_per_player_tick", fmt.Sprintf("%.1f", r.Encode),
		"decode_ns_per_player_tick", fmt.Sprintf("%.1f", r.Decode),
		"roundtrip_exact", r.RoundTrip == nil && r.RoundTripYaw == nil,
		"tick_bytes_per_client_4p", fmt.Sprintf("%.2f", r.TickBytes4),
		"tick_bytes_per_client_with_yaw", fmt.Sprintf("%.2f", r.TickBytesYaw),
		"encode_ns_per_player_tick_with_yaw", fmt.Sprintf("%.1f", r.EncodeYaw),
		"decode_ns_per_player_tick_with_yaw", fmt.Sprintf("%.1f", r.DecodeYaw),
		"allocs_per_player_tick", fmt.Sprintf("%.4f", r.Allocs),
		"varint_baseline_bytes_per_player_tick", fmt.Sprintf("%.3f", r.Baseline),
		"wire_bytes_per_s_down", fmt.Sprintf("%.0f", r.All.Down),
		"wire_bytes_per_s_up", fmt.Sprintf("%.0f", r.All.Up),
		"wire_bytes_per_s_down_selective", fmt.Sprintf("%.0f", r.Selective.Down),
	}
}

// doomInput is a DOOM tic as a game's input struct (the mapping).
type doomInput struct {
	Forward   int8
	Side      int8
	AngleTurn int16 // the demo's byte << 8
	Buttons   uint8
}

// doomInputYaw adds the accumulated turn as a float32, to exercise the
// float coding.
type doomInputYaw struct {
	Forward   int8
	Side      int8
	AngleTurn int16
	Buttons   uint8
	Yaw       float32 // radians in [-π, π)
}

func toInput(t doomdemo.Tic) doomInput {
	return doomInput{t.Forward, t.Side, int16(uint16(uint8(t.AngleTurn)) << 8), t.Buttons}
}

// codecBenchConfig are the fixed parameters of the benchmark.
const (
	benchTickRate = 35 // DOOM's tics per second
	benchHashBits = 8  // world-hash bits per tick (the protocol's default)
	benchLead     = 4  // client input ticks ahead of the server (150 ms RTT at 35 Hz)
	benchRTT      = 150 * time.Millisecond
	benchLoss     = 0.05
)

// format is one input struct's coding: its schema and the packing of a
// demo's tic into it.
type format struct {
	s    *inputs.Schema
	pack packFunc
	// same says whether a decoded input is the tic's.
	same func([]byte, *doomdemo.Tick, int) bool
}

// formats returns the plain DOOM input's coding and the one with the yaw.
func formats() (plain, yaw format, err error) {
	pt, err := inputs.NewType[doomInput]()
	if err != nil {
		return plain, yaw, err
	}
	yt, err := inputs.NewType[doomInputYaw]()
	if err != nil {
		return plain, yaw, err
	}
	plain = format{s: pt.Schema, pack: func(dst []byte, tk *doomdemo.Tick, s int) []byte {
		v := toInput(tk.Input[s])
		return pt.Pack(dst, &v)
	}, same: func(got []byte, tk *doomdemo.Tick, s int) bool {
		var v doomInput
		pt.Unpack(got, &v)
		return v == toInput(tk.Input[s])
	}}
	yaw = format{s: yt.Schema, pack: func(dst []byte, tk *doomdemo.Tick, s int) []byte {
		v0 := toInput(tk.Input[s])
		v := doomInputYaw{v0.Forward, v0.Side, v0.AngleTurn, v0.Buttons, tk.Yaw[s]}
		return yt.Pack(dst, &v)
	}, same: func(got []byte, tk *doomdemo.Tick, s int) bool {
		var v doomInputYaw
		yt.Unpack(got, &v)
		w := toInput(tk.Input[s])
		return v.Forward == w.Forward && v.Side == w.Side && v.AngleTurn == w.AngleTurn && v.Buttons == w.Buttons &&
			math.Float32bits(v.Yaw) == math.Float32bits(tk.Yaw[s])
	}}
	return plain, yaw, nil
}

// Run loads the demos of cfg.Dir and measures; an unreadable demo is an
// error that names it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	demos, err := doomdemo.LoadDir(cfg.Dir)
	if err != nil {
		return Result{}, err
	}
	ticks := doomdemo.Match(demos)
	fmt.Fprintf(log, "bench codec: %d demos, %d ticks in the match at %d Hz\n", len(demos), len(ticks), benchTickRate)
	plain, yaw, err := formats()
	if err != nil {
		return Result{}, err
	}
	r := Result{Demos: len(demos)}

	// Input payload: the delta codes alone, per player-tick present.
	playerTicks, bits := inputBits(plain.s, ticks, plain.pack)
	_, bitsYaw := inputBits(yaw.s, ticks, yaw.pack)
	r.PlayerTicks, r.Baseline = playerTicks, varintBaseline(ticks)
	r.InputBytes = float64(bits) / 8 / float64(playerTicks)
	r.InputBytesYaw = float64(bitsYaw) / 8 / float64(playerTicks)
	fmt.Fprintf(log, "input payload: %.3f B/player-tick (with yaw %.3f); byte-aligned varint baseline %.3f\n", r.InputBytes, r.InputBytesYaw, r.Baseline)

	// Tick bodies and the datagram of one fresh tick per client.
	bodies := encodeBodies(plain.s, ticks, plain.pack)
	bodiesYaw := encodeBodies(yaw.s, ticks, yaw.pack)
	r.TickBytes, r.TickBytes4 = freshTickBytes(ticks, bodies)
	r.TickBytesYaw, _ = freshTickBytes(ticks, bodiesYaw)
	fmt.Fprintf(log, "one fresh tick per client: %.2f B (over ticks with 4 players %.2f B; with yaw %.2f B)\n", r.TickBytes, r.TickBytes4, r.TickBytesYaw)

	// Exact round trip through datagrams.
	r.RoundTrip = roundTrip(plain.s, ticks, bodies, plain.same)
	r.RoundTripYaw = roundTrip(yaw.s, ticks, bodiesYaw, yaw.same)
	if r.RoundTrip != nil {
		fmt.Fprintf(log, "round trip: %v\n", r.RoundTrip)
	}
	if r.RoundTripYaw != nil {
		fmt.Fprintf(log, "round trip with yaw: %v\n", r.RoundTripYaw)
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.timings(ticks, plain, yaw, bodies, bodiesYaw, cfg.MinTime, log)
	r.links(ticks, plain, bodies, log)
	return r, nil
}

// timings times the encoding and decoding and counts their allocations.
func (r *Result) timings(ticks []doomdemo.Tick, plain, yaw format, bodies, bodiesYaw [][]byte, minTime time.Duration, log io.Writer) {
	var encAllocs, decAllocs, encAllocsY, decAllocsY float64
	r.Encode, encAllocs = timeEncode(plain.s, ticks, plain.pack, r.PlayerTicks, minTime)
	r.Decode, decAllocs = timeDecode(plain.s, ticks, bodies, r.PlayerTicks, minTime)
	r.EncodeYaw, encAllocsY = timeEncode(yaw.s, ticks, yaw.pack, r.PlayerTicks, minTime)
	r.DecodeYaw, decAllocsY = timeDecode(yaw.s, ticks, bodiesYaw, r.PlayerTicks, minTime)
	r.Allocs = encAllocs + decAllocs + encAllocsY + decAllocsY
	fmt.Fprintf(log, "encode %.1f ns, decode %.1f ns per player-tick (with yaw %.1f / %.1f); allocations per player-tick %.4f\n",
		r.Encode, r.Decode, r.EncodeYaw, r.DecodeYaw, r.Allocs)
}

// links models wire bytes per second per client over a lossy link, under
// codec's two Resender policies on their own (not the server's policy,
// which is selective plus the tick before each fresh one: bench match
// measures the server).
func (r *Result) links(ticks []doomdemo.Tick, plain format, bodies [][]byte, log io.Writer) {
	r.All = simulateLink(plain.s, ticks, bodies, plain.pack, true)
	r.Selective = simulateLink(plain.s, ticks, bodies, plain.pack, false)
	for _, c := range []struct {
		name string
		r    Link
	}{{"codec Resender default: every unacked tick in every datagram (the server's --resend all)", r.All},
		{"codec Resender Selective: only resends on a gap or timeout (no redundant previous tick, unlike the server)", r.Selective}} {
		fmt.Fprintf(log, "link model, 150 ms RTT, 5%% loss each way, %s: down %.0f B/s, up %.0f B/s; ticks applied late %.1f%%, by %v on average, worst %v\n",
			c.name, c.r.Down, c.r.Up, 100*c.r.LateFrac, c.r.MeanLate.Round(time.Millisecond), c.r.Worst.Round(time.Millisecond))
	}
}

type packFunc func(dst []byte, tk *doomdemo.Tick, slot int) []byte

// inputBits codes every present player's input as a delta from its
// previous one and returns the player-ticks and the bits written.
func inputBits(s *inputs.Schema, ticks []doomdemo.Tick, pack packFunc) (int, int) {
	var st [doomdemo.Slots]inputs.State
	var w inputs.BitWriter
	var buf [inputs.MaxSize]byte
	n := 0
	for i := range ticks {
		tk := &ticks[i]
		for _, ev := range tk.Events {
			if ev.Join {
				s.ResetState(&st[ev.Player], nil)
			}
		}
		for p := 0; p < doomdemo.Slots; p++ {
			if tk.Present[p] {
				s.EncodeDelta(&w, &st[p], pack(buf[:], tk, p))
				n++
			}
		}
	}
	return n, w.BitLen()
}

// varintBaseline is the byte-aligned coding the issue compares against: a
// bit per field, then a zigzag varint of each changed field's difference.
func varintBaseline(ticks []doomdemo.Tick) float64 {
	var prev [doomdemo.Slots]doomInput
	bits, n := 0, 0
	for i := range ticks {
		tk := &ticks[i]
		for _, ev := range tk.Events {
			if ev.Join {
				prev[ev.Player] = doomInput{}
			}
		}
		for p := 0; p < doomdemo.Slots; p++ {
			if !tk.Present[p] {
				continue
			}
			n++
			v := toInput(tk.Input[p])
			o := prev[p]
			bits += 4
			for _, d := range []int64{int64(v.Forward) - int64(o.Forward), int64(v.Side) - int64(o.Side),
				int64(v.AngleTurn) - int64(o.AngleTurn), int64(v.Buttons) - int64(o.Buttons)} {
				if d != 0 {
					z := uint64(d<<1) ^ uint64(d>>63)
					for bits += 8; z >= 0x80; z >>= 7 {
						bits += 8
					}
				}
			}
			prev[p] = v
		}
	}
	return float64(bits) / 8 / float64(n)
}

// feedTick gives the encoder one tick of the match.
func feedTick(e *rwcodec.TickEncoder, tk *doomdemo.Tick, pack packFunc, buf []byte) {
	for _, ev := range tk.Events {
		var err error
		if ev.Join {
			err = e.Join(ev.Player)
		} else {
			err = e.Leave(ev.Player)
		}
		if err != nil {
			panic(err)
		}
	}
	for p := 0; p < doomdemo.Slots; p++ {
		if tk.Present[p] {
			if err := e.SetInput(uint8(p), pack(buf, tk, p)); err != nil {
				panic(err)
			}
		}
	}
}

// worldHash stands in for the world hash after tick i.
func worldHash(i int) uint64 { return uint64(i+1) * 0x9E3779B97F4A7C15 }

func encodeBodies(s *inputs.Schema, ticks []doomdemo.Tick, pack packFunc) [][]byte {
	e := rwcodec.NewTickEncoder(s, benchHashBits)
	var buf [inputs.MaxSize]byte
	out := make([][]byte, len(ticks))
	for i := range ticks {
		feedTick(e, &ticks[i], pack, buf[:])
		out[i] = e.AppendTick(nil, worldHash(i))
	}
	return out
}

// freshTickBytes averages the ServerTicks datagram of one fresh tick alone,
// as each client gets it on a lossless link: client inputs acknowledged up
// to benchLead ticks ahead, the margin once a second.
func freshTickBytes(ticks []doomdemo.Tick, bodies [][]byte) (all, four float64) {
	var sum, sum4 float64
	var n, n4 int
	for i := range ticks {
		tk := &ticks[i]
		m := rwcodec.ServerTicks{Tag: 0x5A, First: uint32(i), Ack: reliable.Ack{Next: uint32(i + benchLead)},
			HasMargin: i%benchTickRate == 0, Margin: 20, Ticks: []rwcodec.TickBody{{Tick: uint32(i), Body: bodies[i]}}}
		size := float64(m.Length())
		present := 0
		for _, p := range tk.Present {
			if p {
				present++
			}
		}
		if present == 0 {
			continue
		}
		sum += size
		n++
		if present == doomdemo.Slots {
			sum4 += size
			n4++
		}
	}
	return sum / float64(max(n, 1)), sum4 / float64(max(n4, 1))
}

// roundTrip sends every body in a ServerTicks datagram, parses and decodes
// it, and compares every present player's input, the events and the hash.
func roundTrip(s *inputs.Schema, ticks []doomdemo.Tick, bodies [][]byte, same func([]byte, *doomdemo.Tick, int) bool) error {
	d := rwcodec.NewTickDecoder(s, benchHashBits)
	t := rwcodec.Tick{Events: make([]rwcodec.Event, 0, rwcodec.MaxEvents)}
	var buf []byte
	for i := range ticks {
		tk := &ticks[i]
		m := rwcodec.ServerTicks{Tag: 1, First: uint32(i), Ack: reliable.Ack{Next: uint32(i)}, Ticks: []rwcodec.TickBody{{Tick: uint32(i), Body: bodies[i]}}}
		buf = m.Append(buf[:0])
		got, _, err := rwcodec.ParseServerTicks(buf, uint32(max(i-1, 0)))
		if err != nil {
			return fmt.Errorf("tick %d: %w", i, err)
		}
		if len(got.Ticks) != 1 || got.Ticks[0].Tick != uint32(i) {
			return fmt.Errorf("tick %d: parsed %+v", i, got)
		}
		if err := d.DecodeTick(got.Ticks[0].Body, &t); err != nil {
			return fmt.Errorf("tick %d: %w", i, err)
		}
		if len(t.Events) != len(tk.Events) {
			return fmt.Errorf("tick %d: %d events, want %d", i, len(t.Events), len(tk.Events))
		}
		for j, ev := range tk.Events {
			if (t.Events[j].Kind == rwcodec.EventJoin) != ev.Join || t.Events[j].Player != ev.Player {
				return fmt.Errorf("tick %d: event %d differs", i, j)
			}
		}
		if t.Hash != worldHash(i)&(1<<benchHashBits-1) {
			return fmt.Errorf("tick %d: hash bits differ", i)
		}
		for p := 0; p < doomdemo.Slots; p++ {
			if t.Present.Has(uint8(p)) != tk.Present[p] {
				return fmt.Errorf("tick %d: presence of %d differs", i, p)
			}
			if tk.Present[p] && !same(d.Roster().Input(uint8(p)), tk, p) {
				return fmt.Errorf("tick %d: input of player %d differs", i, p)
			}
		}
	}
	return nil
}

func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// timeEncode times the server's side: packing each present player's
// input, staging it and encoding the tick body, over the whole match.
func timeEncode(s *inputs.Schema, ticks []doomdemo.Tick, pack packFunc, playerTicks int, minTime time.Duration) (ns, allocs float64) {
	out := make([]byte, 0, 4096)
	var buf [inputs.MaxSize]byte
	pass := func() {
		e := rwcodec.NewTickEncoder(s, benchHashBits)
		for i := range ticks {
			feedTick(e, &ticks[i], pack, buf[:])
			out = e.AppendTick(out[:0], worldHash(i))
		}
	}
	pass()
	return timePasses(pass, playerTicks, minTime)
}

// timeDecode times a client's side: decoding each tick body and unpacking
// every present player's input.
func timeDecode(s *inputs.Schema, ticks []doomdemo.Tick, bodies [][]byte, playerTicks int, minTime time.Duration) (ns, allocs float64) {
	t := rwcodec.Tick{Events: make([]rwcodec.Event, 0, rwcodec.MaxEvents)}
	var sink doomInputYaw
	var sinkPlain doomInput
	var yaw *inputs.Type[doomInputYaw]
	var plain *inputs.Type[doomInput]
	if s.NumFields() == 5 {
		yaw = &inputs.Type[doomInputYaw]{Schema: s}
	} else {
		plain = &inputs.Type[doomInput]{Schema: s}
	}
	pass := func() {
		d := rwcodec.NewTickDecoder(s, benchHashBits)
		for i := range bodies {
			if err := d.DecodeTick(bodies[i], &t); err != nil {
				panic(err)
			}
			for set := t.Present; set != 0; set &= set - 1 {
				p := uint8(trailingZeros64(uint64(set)))
				if yaw != nil {
					yaw.Unpack(d.Roster().Input(p), &sink)
				} else {
					plain.Unpack(d.Roster().Input(p), &sinkPlain)
				}
			}
		}
	}
	pass()
	return timePasses(pass, playerTicks, minTime)
}

func trailingZeros64(x uint64) int {
	n := 0
	for x&1 == 0 && n < 64 {
		x >>= 1
		n++
	}
	return n
}

// timePasses runs pass until minTime has gone by (at least 5 times) and
// returns the fastest pass's ns per player-tick (the machine is shared:
// the minimum is the least disturbed figure) and the allocations per
// player-tick over all passes.
func timePasses(pass func(), playerTicks int, minTime time.Duration) (ns, allocs float64) {
	runtime.GC()
	m0 := mallocs()
	start := time.Now()
	best := time.Duration(math.MaxInt64)
	n := 0
	for n < 5 || time.Since(start) < minTime {
		t := time.Now()
		pass()
		best = min(best, time.Since(t))
		n++
	}
	a := mallocs() - m0
	return float64(best.Nanoseconds()) / float64(playerTicks), float64(a) / float64(n*playerTicks)
}
