package server

import (
	"io"

	"github.com/rewindnet/rewind/codec"
)

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
