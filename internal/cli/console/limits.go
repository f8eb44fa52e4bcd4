package console

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The console under load from outside (issue 43 item 5): event streams
// are capped in all and per address (each is a goroutine and a buffered
// channel), with a reserve for requests carrying the admin token; and
// /console/api/state answers from one snapshot per Interval (the
// Provider, which takes the relay's or the host's lock, is polled once
// per Interval however many ask), rate-limited per address.

const (
	// defaultMaxStreams is Options.MaxStreams's default.
	defaultMaxStreams = 64
	// streamsPerAddr bounds one address's event streams without the token.
	streamsPerAddr = 4
	// tokenStreams are the event streams kept for requests with the
	// token, beyond MaxStreams (the operator gets in during a flood).
	tokenStreams = 16
	// stateRate and stateBurst bound one address's state requests: a
	// token bucket of stateBurst refilled at stateRate a second.
	stateRate, stateBurst = 10.0, 20.0
	// stateAddrs bounds the addresses whose state requests are counted:
	// beyond it, addresses whose bucket refilled are forgotten, and while
	// none has, new ones are refused.
	stateAddrs = 4096
)

// clientAddr is r's remote IP address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// streamGate counts the open event streams.
type streamGate struct {
	mu     sync.Mutex
	plain  int // streams without the token
	admin  int // with it
	byAddr map[string]int
}

// enter admits a stream from addr (admin: with the token) under max
// streams without the token; false if it is refused.
func (g *streamGate) enter(addr string, admin bool, max int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if admin {
		if g.admin >= tokenStreams {
			return false
		}
		g.admin++
		return true
	}
	if g.plain >= max || g.byAddr[addr] >= streamsPerAddr {
		return false
	}
	if g.byAddr == nil {
		g.byAddr = make(map[string]int)
	}
	g.plain++
	g.byAddr[addr]++
	return true
}

// leave ends a stream that entered.
func (g *streamGate) leave(addr string, admin bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if admin {
		g.admin--
		return
	}
	g.plain--
	if g.byAddr[addr]--; g.byAddr[addr] <= 0 {
		delete(g.byAddr, addr)
	}
}

// stateLimiter is the per-address token bucket of state requests.
type stateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*stateBucket
}

type stateBucket struct {
	tokens float64
	last   time.Time
}

// allow takes a token of addr's bucket at now, if it has one.
func (l *stateLimiter) allow(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[addr]
	if b == nil {
		if l.buckets == nil {
			l.buckets = make(map[string]*stateBucket)
		}
		if len(l.buckets) >= stateAddrs {
			for a, o := range l.buckets {
				if o.tokens+stateRate*now.Sub(o.last).Seconds() >= stateBurst {
					delete(l.buckets, a)
				}
			}
			if len(l.buckets) >= stateAddrs {
				return false
			}
		}
		b = &stateBucket{tokens: stateBurst, last: now}
		l.buckets[addr] = b
	}
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(stateBurst, b.tokens+stateRate*dt)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// stateCache is the last state answered: its snapshot, taken at at, and
// its encodings (plain: addresses hashed; revealed: with the token).
type stateCache struct {
	mu              sync.Mutex
	at              time.Time
	snap            Snapshot
	plain, revealed []byte
}

// state returns the state's JSON at now for a watcher who may see
// addresses (reveal) or not: the cached one if it was taken less than
// Interval ago, else a new snapshot's (one Provider poll; concurrent
// requests wait for it rather than poll again).
func (c *Console) state(now time.Time, reveal bool) []byte {
	s := &c.cache
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plain == nil || now.Sub(s.at) >= c.opts.Interval || now.Before(s.at) {
		s.snap = c.hub.poll(now)
		s.at, s.revealed = now, nil
		s.plain = c.encodeState(s.snap, false)
	}
	if !reveal {
		return s.plain
	}
	if s.revealed == nil {
		s.revealed = c.encodeState(s.snap, true)
	}
	return s.revealed
}

// drop forgets the cached state: the next request polls.
func (s *stateCache) drop() {
	s.mu.Lock()
	s.plain, s.revealed = nil, nil
	s.mu.Unlock()
}

// encodeState is snap's JSON, prepared for revealing watchers or not.
func (c *Console) encodeState(snap Snapshot, reveal bool) []byte {
	snap.Rooms = cloneRooms(snap.Rooms)
	c.prepare(&snap, reveal)
	b, _ := json.Marshal(snap)
	return append(b, '\n')
}

// tooMany answers 429 or 503 with a Retry-After of secs.
func tooMany(w http.ResponseWriter, code, secs int, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	httpError(w, code, msg)
}
