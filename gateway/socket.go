package gateway

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// outMsg is a message queued for a socket; with last set, the socket
// closes once it is written.
type outMsg struct {
	b    []byte
	last bool
	code websocket.StatusCode
	why  string
}

// socket is one WebSocket connection: its writer goroutine owns the
// writes, fed through a bounded queue.
type socket struct {
	ws     *websocket.Conn
	gw     *stats
	secure bool       // over TLS, or from a loopback address: a resume is honoured
	ip     netip.Addr // the remote address (server.Config.MaxPlayersPerIP)
	out    chan outMsg
	done   chan struct{} // closed when the socket ends
	once   sync.Once
	code   websocket.StatusCode // the close's status and reason, set before done closes
	why    string
	mu     sync.Mutex
	ended  bool // a last message was queued: nothing more goes
}

// statsOf returns the counters a socket adds to.
func statsOf[I any](gw *Gateway[I]) *stats { return &gw.st }

// send queues b; a full queue (a client too slow to read) closes the
// socket. It reports whether b was queued.
func (s *socket) send(b []byte) bool {
	return s.queue(outMsg{b: b})
}

func (s *socket) queue(m outMsg) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.ended = m.last
	select {
	case s.out <- m:
		return true
	default:
		s.ended = true
		s.closeNow(websocket.StatusPolicyViolation, "too slow: messages piled up (resume to go on)")
		return false
	}
}

// refuse sends an error message; the connection stays.
func (s *socket) refuse(code, msg string) {
	s.gw.errors.Add(1)
	if code == CodeInvalidInput {
		s.gw.invalidInputs.Add(1)
	}
	s.send(errorMessage(code, msg))
}

// fail sends an error message, then closes the connection.
func (s *socket) fail(code, msg string) {
	s.gw.errors.Add(1)
	st := websocket.StatusPolicyViolation
	if code == CodeTooLarge {
		st = websocket.StatusMessageTooBig
	}
	s.queue(outMsg{b: errorMessage(code, msg), last: true, code: st, why: code})
}

// close closes the socket after what is queued (at once if the queue is
// full).
func (s *socket) close(code websocket.StatusCode, why string) {
	s.queue(outMsg{last: true, code: code, why: why})
}

// closeNow ends the socket without waiting for its queue.
func (s *socket) closeNow(code websocket.StatusCode, why string) {
	s.once.Do(func() {
		s.code, s.why = code, why
		close(s.done)
	})
}

// closer closes the WebSocket once the socket ends (with its status,
// waiting up to 5 s for the peer's close) or ctx does (at once).
func (s *socket) closer(ctx context.Context) {
	select {
	case <-s.done:
		_ = s.ws.Close(s.code, s.why)
	case <-ctx.Done():
		_ = s.ws.CloseNow()
	}
}

// writeLoop writes the queued messages until a last one, the socket's
// end or ctx's.
func (s *socket) writeLoop(ctx context.Context) {
	for {
		select {
		case m := <-s.out:
			if m.b != nil {
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				err := s.ws.Write(wctx, websocket.MessageText, m.b)
				cancel()
				if err != nil {
					s.closeNow(websocket.StatusGoingAway, "write failed")
					return
				}
				s.gw.msgsOut.Add(1)
				s.gw.bytesOut.Add(uint64(len(m.b)))
			}
			if m.last {
				s.closeNow(m.code, m.why)
				return
			}
		case <-s.done:
			return
		case <-ctx.Done():
			return
		}
	}
}
