package codec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/rewindnet/rewind/internal/zstdfast"
)

// A replay file records a match so that it can be simulated again and
// checked tick by tick: the match's settings and the game's fingerprint, a
// world to start from (the match's start, or a later world for a recorder
// that joined late), then every tick's events, inputs and world hash, and
// now and then a keyframe (the whole world, for seeking). It is written as
// a stream of frames, each compressed (zstd) and checksummed on its own,
// flushed about once a second: a recorder that crashes loses at most its
// last frame, and a reader tells such an incomplete last frame (the crash's
// tail, ErrReplayTruncated) from a frame that is there but damaged
// (ErrReplayCorrupt).
//
// Layout (little-endian):
//
//	file    magic "RWREPLAY" (8)  version u16 (ReplayVersion)  n u32
//	        crc32c u32 of the 14 bytes before it
//	        header (n bytes, below)  crc32c u32 of the header
//	header  fingerprint u64  layout hash u64  tick rate u16  players u16
//	        input size u16  recorder u8 (0 server, 1 client)
//	        started u64 (Unix milliseconds)  game len u8 + name
//	        settings len u16 + settings (text, e.g. "grid=256")
//	        match settings len u16 + match settings (version 2: the
//	        bytes the server's welcome carries, game.SettingsProvider's;
//	        at most MaxSettings)
//	        module length u32 (version 3: the bytes of the game's
//	        WebAssembly module, 0 for a game without; when not 0, the
//	        first frame is the module, kind 3)
//	frame   0xF7  kind u8 (1 ticks, 2 world)  first tick u32  count u16
//	        raw length u32  compressed length u32  crc32c u32 of the
//	        payload  crc32c u32 of the 20 bytes before it (so that a
//	        damaged length is told from a file that ends)
//	        payload (zstd of raw)
//	ticks   per tick, count of them from first: events u8, each
//	        (kind u8: 1 join, 2 leave; player u8); inputs (players ×
//	        input size bytes, XORed with the previous tick's in this
//	        frame, the first tick's as they are); hash u64
//	world   the world after tick first: present (players bytes, 0 or 1),
//	        then a world encoding (world.AppendWorld)
//	module  (kind 3, first tick 0, count 1) the module's bytes
//
// Version history: 1 — the first; 2 — the match settings (the welcome's)
// after the settings text, so that the game of a match whose settings a
// player took from the host is built from the replay alone; 3 — the
// module's length and its frame, so that a WebAssembly game's replay
// plays with no file but itself. A reader reads every version (a
// version-1 file has no match settings, one before 3 no module).
const (
	// ReplayVersion is the replay format version this codec writes; it
	// reads it and every earlier one.
	ReplayVersion = 3
	// MaxReplayFrame bounds a frame's raw and compressed payload.
	MaxReplayFrame = 1 << 26

	replayMagic      = "RWREPLAY"
	replayFrameMagic = 0xF7
	replayFrameHead  = 1 + 1 + 4 + 2 + 4 + 4 + 4 + 4
	maxReplayHeader  = 1 << 16
)

// Frame kinds of a replay.
const (
	// ReplayTicks is a frame of ticks.
	ReplayTicks = 1
	// ReplayWorld is a frame of one world: the start, or a keyframe.
	ReplayWorld = 2
	// ReplayModule is the frame of the game's module, right after the
	// header (NewReplayReader reads it into the header: Next never
	// returns one).
	ReplayModule = 3
)

// Recorders of a replay (ReplayHeader.Recorder).
const (
	// RecordedByServer marks a replay the server wrote.
	RecordedByServer = 0
	// RecordedByClient marks a replay a client (player or spectator)
	// wrote.
	RecordedByClient = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ReplayHeader is what a replay says about its match.
type ReplayHeader struct {
	// Fingerprint is the game compatibility fingerprint (game.Fingerprint).
	Fingerprint uint64
	// Layout is the world layout's hash.
	Layout uint64
	// TickRate is the match's ticks per second.
	TickRate uint16
	// Players is the number of player slots each tick's inputs hold.
	Players uint16
	// InputSize is the size of one packed input.
	InputSize uint16
	// Recorder is RecordedByServer or RecordedByClient.
	Recorder uint8
	// Started is when the recording started, in Unix milliseconds (given
	// by the recorder's caller: nothing here reads the clock).
	Started uint64
	// Game names the game (at most 255 bytes).
	Game string
	// Settings are the match's settings as text (at most 65535 bytes).
	Settings string
	// MatchSettings are the match's settings as the server's welcome
	// carries them (the game's game.SettingsProvider encoding; at most
	// MaxSettings bytes; empty for a game without settings, and in a
	// version-1 file). A game that is game.Configurable builds itself
	// from them.
	MatchSettings []byte
	// Module is the game's WebAssembly module (game.ModuleSource; at
	// most MaxModuleBytes; empty for a game without, and in a file
	// before version 3). The writer writes it as a frame after the
	// header; the reader reads it back here.
	Module []byte
}

// AppendReplayHeader appends the file's start (magic, version, header) to
// b.
func AppendReplayHeader(b []byte, h *ReplayHeader) ([]byte, error) {
	if len(h.Game) > 255 || len(h.Settings) > 65535 || len(h.MatchSettings) > MaxSettings || len(h.Module) > MaxModuleBytes {
		return b, fmt.Errorf("codec: replay header: game name of %d bytes, settings of %d, match settings of %d, module of %d: %w",
			len(h.Game), len(h.Settings), len(h.MatchSettings), len(h.Module), ErrTooLarge)
	}
	b = append(b, replayMagic...)
	b = binary.LittleEndian.AppendUint16(b, ReplayVersion)
	start := len(b)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0) // length, crc of the file's start
	le := binary.LittleEndian
	b = le.AppendUint64(b, h.Fingerprint)
	b = le.AppendUint64(b, h.Layout)
	b = le.AppendUint16(b, h.TickRate)
	b = le.AppendUint16(b, h.Players)
	b = le.AppendUint16(b, h.InputSize)
	b = append(b, h.Recorder)
	b = le.AppendUint64(b, h.Started)
	b = append(b, byte(len(h.Game)))
	b = append(b, h.Game...)
	b = le.AppendUint16(b, uint16(len(h.Settings)))
	b = append(b, h.Settings...)
	b = le.AppendUint16(b, uint16(len(h.MatchSettings)))
	b = append(b, h.MatchSettings...)
	b = le.AppendUint32(b, uint32(len(h.Module)))
	le.PutUint32(b[start:], uint32(len(b)-start-8))
	le.PutUint32(b[start+4:], crc32.Checksum(b[start-10:start+4], castagnoli))
	return le.AppendUint32(b, crc32.Checksum(b[start+8:], castagnoli)), nil
}

// parseReplayHeader parses the body of a header of format version v; it
// returns the length of the module whose frame follows (0: none).
func parseReplayHeader(b []byte, v uint16) (h ReplayHeader, moduleLen uint32, err error) {
	le := binary.LittleEndian
	if len(b) < 8+8+2+2+2+1+8+1 {
		return h, 0, fmt.Errorf("%w: replay header of %d bytes", ErrReplayCorrupt, len(b))
	}
	h.Fingerprint, h.Layout = le.Uint64(b), le.Uint64(b[8:])
	h.TickRate, h.Players, h.InputSize = le.Uint16(b[16:]), le.Uint16(b[18:]), le.Uint16(b[20:])
	h.Recorder, h.Started = b[22], le.Uint64(b[23:])
	b = b[31:]
	n := int(b[0])
	if len(b) < 1+n+2 {
		return h, 0, fmt.Errorf("%w: replay header: game name", ErrReplayCorrupt)
	}
	h.Game = string(b[1 : 1+n])
	b = b[1+n:]
	m := int(le.Uint16(b))
	if len(b) < 2+m || v == 1 && len(b) != 2+m {
		return h, 0, fmt.Errorf("%w: replay header: settings", ErrReplayCorrupt)
	}
	h.Settings = string(b[2 : 2+m])
	if b = b[2+m:]; v >= 2 {
		tail := 0
		if v >= 3 {
			tail = 4 // the module's length
		}
		if len(b) < 2 || len(b) != 2+int(le.Uint16(b))+tail || len(b)-2-tail > MaxSettings {
			return h, 0, fmt.Errorf("%w: replay header: match settings", ErrReplayCorrupt)
		}
		if n := len(b) - 2 - tail; n > 0 {
			h.MatchSettings = append([]byte(nil), b[2:2+n]...)
		}
		if tail > 0 {
			if moduleLen = le.Uint32(b[len(b)-4:]); moduleLen > MaxModuleBytes {
				return h, 0, fmt.Errorf("%w: replay header: a module of %d bytes", ErrReplayCorrupt, moduleLen)
			}
		}
	}
	if h.TickRate == 0 || h.Players == 0 || h.Players > MaxPlayers || h.InputSize == 0 || h.Recorder > RecordedByClient {
		return h, 0, fmt.Errorf("%w: replay header: tick rate %d, %d players, inputs of %d bytes, recorder %d",
			ErrReplayCorrupt, h.TickRate, h.Players, h.InputSize, h.Recorder)
	}
	return h, moduleLen, nil
}

// ReplayEvent is a join or a leave in a replay's tick.
type ReplayEvent struct {
	// Leave is true for a leave, false for a join.
	Leave bool
	// Player is the player's id.
	Player uint8
}

// ReplayWriter writes a replay to w: the header at once, then frames. Add
// ticks with Tick, worlds with World; Flush writes the ticks added so far
// as one frame (call it about once a second; World flushes first). Writes
// go straight to w, a frame at a time.
type ReplayWriter struct {
	w       io.Writer
	h       ReplayHeader
	raw     []byte // the pending ticks frame's payload
	first   uint32
	count   int
	prev    []byte // the previous tick's inputs in the pending frame
	out     []byte
	written int64
	err     error
}

// NewReplayWriter writes the header to w and returns the writer.
func NewReplayWriter(w io.Writer, h ReplayHeader) (*ReplayWriter, error) {
	b, err := AppendReplayHeader(nil, &h)
	if err != nil {
		return nil, err
	}
	rw := &ReplayWriter{w: w, h: h, prev: make([]byte, int(h.Players)*int(h.InputSize))}
	rw.write(b)
	if len(h.Module) > 0 {
		rw.frame(ReplayModule, 0, 1, h.Module)
	}
	return rw, rw.err
}

// Header returns the replay's header.
func (rw *ReplayWriter) Header() ReplayHeader { return rw.h }

// Written returns the bytes written so far.
func (rw *ReplayWriter) Written() int64 { return rw.written }

// Pending returns how many ticks wait for the next Flush.
func (rw *ReplayWriter) Pending() int { return rw.count }

func (rw *ReplayWriter) write(b []byte) {
	if rw.err != nil {
		return
	}
	n, err := rw.w.Write(b)
	rw.written += int64(n)
	rw.err = err
}

// Tick adds tick t (the one after the last added, or any tick after a
// World) with its events, its inputs (players × input size bytes) and its
// world hash. It returns the first write error.
func (rw *ReplayWriter) Tick(t uint32, events []ReplayEvent, inputs []byte, hash uint64) error {
	if len(inputs) != len(rw.prev) || len(events) > 255 {
		return fmt.Errorf("codec: replay tick %d: %d input bytes (want %d), %d events: %w", t, len(inputs), len(rw.prev), len(events), ErrMalformed)
	}
	if rw.count > 0 && t != rw.first+uint32(rw.count) || rw.count == 0xFFFF || len(rw.raw) > MaxReplayFrame/2 {
		rw.Flush()
	}
	if rw.count == 0 {
		rw.first = t
		clear(rw.prev)
	}
	rw.raw = append(rw.raw, byte(len(events)))
	for _, e := range events {
		k := byte(1)
		if e.Leave {
			k = 2
		}
		rw.raw = append(rw.raw, k, e.Player)
	}
	for i, v := range inputs {
		rw.raw = append(rw.raw, v^rw.prev[i])
	}
	copy(rw.prev, inputs)
	rw.raw = binary.LittleEndian.AppendUint64(rw.raw, hash)
	rw.count++
	return rw.err
}

// World writes the world after tick t as a frame of its own (after
// flushing the pending ticks): present has one entry per player slot, enc
// is a world encoding (world.AppendWorld; uncompressed is best, the frame
// is).
func (rw *ReplayWriter) World(t uint32, present []bool, enc []byte) error {
	rw.Flush()
	if len(present) != int(rw.h.Players) || 1+len(present)+len(enc) > MaxReplayFrame {
		return fmt.Errorf("codec: replay world of tick %d: %d presence entries, %d bytes: %w", t, len(present), len(enc), ErrTooLarge)
	}
	raw := make([]byte, 0, len(present)+len(enc))
	for _, p := range present {
		raw = append(raw, b2u8(p))
	}
	raw = append(raw, enc...)
	rw.frame(ReplayWorld, t, 1, raw)
	return rw.err
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Flush writes the pending ticks as one frame. It returns the first write
// error.
func (rw *ReplayWriter) Flush() error {
	if rw.count > 0 {
		rw.frame(ReplayTicks, rw.first, rw.count, rw.raw)
		rw.raw, rw.count = rw.raw[:0], 0
	}
	return rw.err
}

// frame writes one frame of kind with its raw payload.
func (rw *ReplayWriter) frame(kind byte, first uint32, count int, raw []byte) {
	le := binary.LittleEndian
	b := append(rw.out[:0], replayFrameMagic, kind)
	b = le.AppendUint32(b, first)
	b = le.AppendUint16(b, uint16(count))
	b = le.AppendUint32(b, uint32(len(raw)))
	b = append(b, make([]byte, 12)...) // compressed length, crcs
	b = zstdfast.Append(b, raw)
	le.PutUint32(b[12:], uint32(len(b)-replayFrameHead))
	le.PutUint32(b[16:], crc32.Checksum(b[replayFrameHead:], castagnoli))
	le.PutUint32(b[20:], crc32.Checksum(b[:20], castagnoli))
	rw.out = b
	rw.write(b)
}
