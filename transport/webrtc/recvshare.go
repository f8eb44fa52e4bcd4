package webrtc

import "github.com/rewindnet/rewind/transport"

// The receive path under a hostile peer (issue 43 item 4). A datagram
// larger than transport.MaxDatagram is dropped on arrival (RecvTooLarge):
// no rewind sender makes one (Send refuses it with ErrTooLarge), while a
// data channel carries messages of up to 64 KiB, which a joiner could
// send to make the host decode them. And the receive queue is shared per
// peer: one peer may hold at most RecvQueue / (peers with datagrams
// waiting + 1) of it (half while it is alone); beyond, its new datagrams
// are dropped (RecvDropped), not another peer's, so a peer flooding the
// host fills its own share, never the whole queue.
// Not defended here: the CPU that decrypting and reading a flood within
// the share costs (pion's DTLS and SCTP, then the match's decoding).

// recvShare counts each peer's datagrams in the receive queue.
type recvShare struct {
	held map[transport.Addr]int
}

// admit reports whether from may queue one more datagram in a queue of
// limit, counting it if so.
func (s *recvShare) admit(from transport.Addr, limit int) bool {
	if s.held == nil {
		s.held = make(map[transport.Addr]int)
	}
	h := s.held[from]
	others := len(s.held)
	if h == 0 {
		others++ // from is among the peers waiting once queued
	}
	if h >= max(1, limit/(others+1)) {
		return false
	}
	s.held[from] = h + 1
	return true
}

// taken uncounts one datagram of from, read or dropped from the queue.
func (s *recvShare) taken(from transport.Addr) {
	if s.held[from]--; s.held[from] <= 0 {
		delete(s.held, from)
	}
}
