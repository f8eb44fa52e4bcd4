package server

import (
	"io"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Recorder receives what a replay of the match needs (Config.Record);
// replay.Recorder writes it to a replay file (codec.ReplayWriter).
// client.Recorder is the same interface: one recorder serves either. A
// recorder that is also an io.Closer is closed when the server says
// goodbye (the match is over).
type Recorder interface {
	// RecordStart is called before the first tick recorded with the
	// replay's header (the match's side of it: fingerprint, layout, tick
	// rate, player slots, input size, recorder, the match settings its
	// welcomes carry), the world after tick and
	// who is present then. w is valid only during the call.
	RecordStart(h codec.ReplayHeader, tick uint32, w *world.World, present []bool)
	// RecordTick is called after every tick with its events, every
	// slot's packed input, the world's full hash and the world after it
	// (nil from a client, whose world is ahead). All are valid only
	// during the call.
	RecordTick(tick uint32, events []game.Event, inputs []byte, hash uint64, w *world.World)
}

// recordStart picks the match's recorder and gives it its header and
// start world, once, before the first tick runs.
func (s *Server[I]) recordStart() {
	if s.recording {
		return
	}
	s.recording = true // once, recorder or not
	if s.rec = s.cfg.Record; s.cfg.NewRecorder != nil {
		s.rec = s.cfg.NewRecorder()
	}
	if s.rec == nil {
		return
	}
	h := codec.ReplayHeader{Fingerprint: s.wire.fingerprint, Layout: s.w.Layout().Hash(), TickRate: uint16(s.tickRate),
		Players: uint16(s.cfg.MaxPlayers), InputSize: uint16(s.size), Recorder: codec.RecordedByServer,
		MatchSettings: s.wire.settings, Module: s.mod.bytes}
	s.rec.RecordStart(h, s.tick, s.w, s.present)
}

// recordEnd tells the recorder the match is over (End, Goodbye): one that is
// an io.Closer is closed (its error is the recorder's to report).
func (s *Server[I]) recordEnd() {
	if c, ok := s.rec.(io.Closer); ok {
		_ = c.Close()
	}
	s.rec = nil // once (End, then Goodbye)
}
