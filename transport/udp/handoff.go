package udp

import "github.com/rewindnet/rewind/transport"

var _ transport.Handoff = (*Server)(nil)

// SetHandler implements Handoff.
func (s *Server) SetHandler(h transport.Handler) {
	s.hmu.Lock() // waits for the batch being handled
	defer s.hmu.Unlock()
	s.handler = h
}
