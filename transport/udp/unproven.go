package udp

import (
	"net/netip"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// Prove implements Prover: the session of a is proven. Until then it is
// one of the unproven, capped per source IP (IPv6: per /64), evicted first when the
// server is full and ended UnprovenTimeout after it opened.
func (s *Server) Prove(a transport.Addr) {
	s.mu.Lock()
	if sess := s.byAddr[a]; sess != nil {
		s.proveLocked(sess)
	}
	s.mu.Unlock()
}

// Unproven returns how many open sessions are not proven yet.
func (s *Server) Unproven() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.unproven.n
}

// udpUnproven holds the unproven sessions in the order they opened (a
// list threaded through the sessions) and by source IP, keyed as the
// handshake rates are (udpRateKey: an IPv6 address by its /64), so that
// a flood rotating addresses within one /64 is one address to the cap
// and never a newcomer.
type udpUnproven struct {
	head, tail *udpSession
	n          int
	byIP       map[netip.Addr][]*udpSession // by udpRateKey, oldest first
}

// of returns the unproven sessions of ip's key (its /64 for IPv6),
// oldest first.
func (u *udpUnproven) of(ip netip.Addr) []*udpSession {
	return u.byIP[udpRateKey(ip)]
}

func (u *udpUnproven) add(sess *udpSession) {
	sess.prev, sess.next = u.tail, nil
	if u.tail != nil {
		u.tail.next = sess
	} else {
		u.head = sess
	}
	u.tail = sess
	u.n++
	if u.byIP == nil {
		u.byIP = make(map[netip.Addr][]*udpSession)
	}
	ip := udpRateKey(sess.from.Addr())
	u.byIP[ip] = append(u.byIP[ip], sess)
}

// remove takes sess off the lists; false if it was not on them.
func (u *udpUnproven) remove(sess *udpSession) bool {
	ip := udpRateKey(sess.from.Addr())
	list := u.byIP[ip]
	i := 0
	for i < len(list) && list[i] != sess {
		i++
	}
	if i == len(list) {
		return false
	}
	copy(list[i:], list[i+1:])
	list[len(list)-1] = nil
	if list = list[:len(list)-1]; len(list) == 0 {
		delete(u.byIP, ip)
	} else {
		u.byIP[ip] = list
	}
	if sess.prev != nil {
		sess.prev.next = sess.next
	} else {
		u.head = sess.next
	}
	if sess.next != nil {
		sess.next.prev = sess.prev
	} else {
		u.tail = sess.prev
	}
	sess.prev, sess.next = nil, nil
	u.n--
	return true
}

// proveLocked marks sess proven. Called with s.mu held.
func (s *Server) proveLocked(sess *udpSession) {
	if sess.proven.Load() {
		return
	}
	sess.proven.Store(true)
	s.unproven.remove(sess)
	s.known.add(sess.from.Addr(), sess.lastHeard.Load())
}

// proveByData proves sess on its first DATA frame, unless the user proves
// sessions itself (Config.ProveExplicitly).
func (s *Server) proveByData(sess *udpSession) {
	if s.cfg.ProveExplicitly || sess.proven.Load() {
		return
	}
	s.mu.Lock()
	if s.byID[sess.sid] == sess {
		s.proveLocked(sess)
	}
	s.mu.Unlock()
}

// evictLocked ends an unproven session to make room for a new one, saying
// BYE to it (best effort). Called with s.mu held.
func (s *Server) evictLocked(sess *udpSession, out []byte) []byte {
	s.removeLocked(sess)
	s.stats.unprovenEvicted.Add(1)
	out = sess.short(out[:0], udpBye, nil)
	s.stats.wrote(s.conn.WriteToUDPAddrPort(out, sess.from))
	return out
}

// makeRoomLocked applies the caps for the unproven before a new session
// from ip opens: at MaxUnprovenPerIP, the oldest unproven session of ip
// (IPv6: of its /64) goes; with every session taken, an unproven one
// goes (victim: the oldest of an address that holds several, else the
// oldest). It reports whether there is room. Called with s.mu held.
func (s *Server) makeRoomLocked(ip netip.Addr, now time.Time, out []byte) ([]byte, bool) {
	s.reapLocked(now)
	if list := s.unproven.of(ip); len(list) >= s.cfg.MaxUnprovenPerIP {
		out = s.evictLocked(list[0], out)
	}
	if len(s.byID) >= s.cfg.MaxSessions {
		victim := s.unproven.victim()
		if victim == nil {
			return out, false
		}
		out = s.evictLocked(victim, out)
	}
	return out, true
}

// victimScan bounds how many unproven sessions victim looks at.
const victimScan = 64

// victim returns the unproven session to end for a newcomer when the
// server is full, among the victimScan oldest: the oldest that never
// sent a sealed frame that opened (a client that finished the handshake
// sends its first DATA at once: one that did not holds no keys, like a
// flood that reuses one ephemeral key to spare itself the work), else
// the oldest whose address holds more than one unproven session, else
// the oldest of all. So a flood of handshakes, however fast they finish
// and from however many addresses, evicts its own sessions before a
// player's that spoke, which lives until its match proves it (or
// UnprovenTimeout). Nil if no session is unproven.
func (u *udpUnproven) victim() *udpSession {
	var crowded *udpSession
	n := 0
	for sess := u.head; sess != nil && n < victimScan; sess, n = sess.next, n+1 {
		if !sess.heard.Load() {
			return sess
		}
		if crowded == nil && len(u.of(sess.from.Addr())) > 1 {
			crowded = sess
		}
	}
	if crowded != nil {
		return crowded
	}
	return u.head
}

// reapLocked ends the unproven sessions opened UnprovenTimeout or more
// before now (the list is in the order they opened). Called with s.mu
// held.
func (s *Server) reapLocked(now time.Time) {
	limit := now.UnixNano() - int64(s.cfg.UnprovenTimeout)
	for sess := s.unproven.head; sess != nil && sess.opened <= limit; sess = s.unproven.head {
		s.removeLocked(sess)
		s.stats.unprovenReaped.Add(1)
	}
}
