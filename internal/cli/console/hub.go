package console

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HubOptions configures a Hub.
type HubOptions struct {
	// Interval is how often the Provider is polled while watched.
	Interval time.Duration
	// History is how many one-second samples the graphs keep.
	History int
	// Prepare stamps a snapshot before it is encoded; reveal says whether
	// the copy goes to watchers who asked (with the token) for addresses.
	// Nil: addresses are sent as they are.
	Prepare func(s *Snapshot, reveal bool)
	// Ticker makes the polling ticker (default time.NewTicker); tests pass
	// one they drive with made-up times.
	Ticker func(d time.Duration) (c <-chan time.Time, stop func())
	// Now is the clock of the first poll (default time.Now).
	Now func() time.Time
}

// Sample is one point of the console's graphs, taken once a second while
// someone watches.
type Sample struct {
	// T is the sample's time, Unix milliseconds.
	T       int64 `json:"t"`
	Players int   `json:"players"`
	Rooms   int   `json:"rooms"`
	// TicksLate is the process's tick lateness p99 in ms, if it runs matches.
	TicksLate *float64 `json:"ticksLate,omitempty"`
	// BytesPerSec is the bytes in and out per second since the last sample.
	BytesPerSec float64 `json:"bytesPerSec"`
	// Refusals is refusals per second by reason since the last sample.
	Refusals map[string]float64 `json:"refusals,omitempty"`
}

// Hub polls a Provider while at least one event stream is open and sends
// each watcher the snapshots: at once when the rooms or players changed,
// else once a second. With nobody watching it runs no goroutine and never
// calls the Provider.
type Hub struct {
	src Provider
	o   HubOptions

	stepMu sync.Mutex // one Step at a time

	mu      sync.Mutex
	subs    map[*Sub]struct{}
	stop    chan struct{} // closed to stop the running loop; nil when none runs
	hist    []Sample
	prev    counters
	prevAt  time.Time
	rates   map[string][2]float64 // room code, or code/player id: bytes in, out per second
	lastKey string
	polls   uint64
}

// counters are the byte and refusal counters of one snapshot.
type counters struct {
	bytes    map[string][2]uint64
	total    [2]uint64
	refusals map[string]uint64
}

// Sub is one watcher: its channel receives framed Server-Sent Events.
type Sub struct {
	// C receives the events; a watcher too slow to take them misses some.
	C      chan []byte
	reveal bool
	fresh  bool // sent nothing yet: gets the history and the next snapshot
}

// NewHub returns a hub of src, idle until Subscribe.
func NewHub(src Provider, o HubOptions) *Hub {
	if o.Interval <= 0 {
		o.Interval = 250 * time.Millisecond
	}
	if o.History <= 0 {
		o.History = 300
	}
	if o.Ticker == nil {
		o.Ticker = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Hub{src: src, o: o, subs: make(map[*Sub]struct{})}
}

// Subscribe adds a watcher (reveal: it may see addresses) and starts
// polling if it is the first.
func (h *Hub) Subscribe(reveal bool) *Sub {
	s := &Sub{C: make(chan []byte, 8), reveal: reveal, fresh: true}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[s] = struct{}{}
	if h.stop == nil {
		h.stop = make(chan struct{})
		go h.run(h.stop)
	}
	return s
}

// Unsubscribe removes a watcher; polling stops with the last one.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
	if len(h.subs) == 0 && h.stop != nil {
		close(h.stop)
		h.stop = nil
	}
}

// Watching reports whether a loop is polling the Provider.
func (h *Hub) Watching() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stop != nil
}

// Polls counts the Provider's snapshots taken.
func (h *Hub) Polls() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.polls
}

// History returns the graph samples kept, oldest first.
func (h *Hub) History() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Sample(nil), h.hist...)
}

func (h *Hub) run(stop chan struct{}) {
	c, stopTicker := h.o.Ticker(h.o.Interval)
	defer stopTicker()
	h.Step(h.o.Now())
	for {
		select {
		case <-stop:
			return
		case now := <-c:
			select {
			case <-stop:
				return
			default:
			}
			h.Step(now)
		}
	}
}

// poll takes one snapshot of the Provider at now (one caller at a time,
// as Step's).
func (h *Hub) poll(now time.Time) Snapshot {
	h.stepMu.Lock()
	defer h.stepMu.Unlock()
	snap := h.src.Snapshot(now)
	snap.Now = now.UnixMilli()
	h.mu.Lock()
	h.polls++
	h.mu.Unlock()
	return snap
}

// Step polls the Provider once at now and sends what is due (the loop
// calls it; tests call it with made-up times).
func (h *Hub) Step(now time.Time) {
	h.stepMu.Lock()
	defer h.stepMu.Unlock()
	snap := h.src.Snapshot(now)
	snap.Now = now.UnixMilli()
	cur := countersOf(&snap)

	h.mu.Lock()
	defer h.mu.Unlock()
	h.polls++
	var sample *Sample
	if h.prevAt.IsZero() || now.Sub(h.prevAt) >= time.Second-h.o.Interval/2 {
		sample = h.sample(&snap, cur, now)
	}
	h.applyRates(&snap)
	key := rosterKey(&snap)
	changed := key != h.lastKey
	h.lastKey = key
	var plain, revealed []byte
	for s := range h.subs {
		if !changed && sample == nil && !s.fresh {
			continue
		}
		if s.fresh {
			hb, _ := json.Marshal(h.hist)
			offer(s, frame("history", hb))
			s.fresh = false
		}
		var b *[]byte
		if s.reveal {
			b = &revealed
		} else {
			b = &plain
		}
		if *b == nil {
			*b = h.encode(snap, sample, s.reveal)
		}
		offer(s, *b)
	}
}

// encode frames a snapshot event, prepared for revealing watchers or not.
func (h *Hub) encode(snap Snapshot, sample *Sample, reveal bool) []byte {
	snap.Rooms = cloneRooms(snap.Rooms) // Prepare may rewrite members
	if h.o.Prepare != nil {
		h.o.Prepare(&snap, reveal)
	}
	b, _ := json.Marshal(struct {
		Snapshot Snapshot `json:"snapshot"`
		Sample   *Sample  `json:"sample"`
	}{snap, sample})
	return frame("snapshot", b)
}

// offer sends b to s unless s is behind.
func offer(s *Sub, b []byte) {
	select {
	case s.C <- b:
	default:
	}
}

// frame is one Server-Sent Event.
func frame(event string, data []byte) []byte {
	b := make([]byte, 0, len(data)+32)
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// countersOf reads the byte and refusal counters of snap.
func countersOf(snap *Snapshot) counters {
	c := counters{bytes: make(map[string][2]uint64), total: [2]uint64{snap.BytesIn, snap.BytesOut}, refusals: snap.Refusals}
	for _, r := range snap.Rooms {
		c.bytes[r.Code] = [2]uint64{r.BytesIn, r.BytesOut}
		for _, p := range r.Members {
			c.bytes[r.Code+"/"+p.ID] = [2]uint64{p.BytesIn, p.BytesOut}
		}
	}
	return c
}

// sample takes a graph sample and the rates since the previous one.
func (h *Hub) sample(snap *Snapshot, cur counters, now time.Time) *Sample {
	s := Sample{T: now.UnixMilli(), Rooms: len(snap.Rooms), TicksLate: snap.TicksLateP99}
	for _, r := range snap.Rooms {
		s.Players += r.Players
	}
	rates := make(map[string][2]float64)
	if !h.prevAt.IsZero() {
		dt := now.Sub(h.prevAt).Seconds()
		s.BytesPerSec = float64(sub(cur.total[0], h.prev.total[0])+sub(cur.total[1], h.prev.total[1])) / dt
		for k, v := range cur.bytes {
			if p, ok := h.prev.bytes[k]; ok {
				rates[k] = [2]float64{float64(sub(v[0], p[0])) / dt, float64(sub(v[1], p[1])) / dt}
			}
		}
		for why, n := range cur.refusals {
			if d := sub(n, h.prev.refusals[why]); d > 0 {
				if s.Refusals == nil {
					s.Refusals = make(map[string]float64)
				}
				s.Refusals[why] = float64(d) / dt
			}
		}
	}
	h.prev, h.prevAt, h.rates = cur, now, rates
	h.prev.refusals = maps.Clone(cur.refusals)
	if len(h.hist) >= h.o.History {
		h.hist = append(h.hist[:0], h.hist[1:]...)
	}
	h.hist = append(h.hist, s)
	return &h.hist[len(h.hist)-1]
}

// sub is a-b, or 0 for a counter that went back (a restarted room).
func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// applyRates fills snap's rates from the last sample's.
func (h *Hub) applyRates(snap *Snapshot) {
	for i := range snap.Rooms {
		r := &snap.Rooms[i]
		if v, ok := h.rates[r.Code]; ok && (r.BytesIn > 0 || r.BytesOut > 0) {
			r.InPerSec, r.OutPerSec = &v[0], &v[1]
		}
		for j := range r.Members {
			p := &r.Members[j]
			if v, ok := h.rates[r.Code+"/"+p.ID]; ok && (p.BytesIn > 0 || p.BytesOut > 0) {
				p.InPerSec, p.OutPerSec = &v[0], &v[1]
			}
		}
	}
}

// rosterKey names what, when it changes, is sent at once: the rooms, their
// members and states, and the drain.
func rosterKey(snap *Snapshot) string {
	var b strings.Builder
	b.WriteString(strconv.FormatBool(snap.Draining))
	for _, r := range snap.Rooms {
		b.WriteString("|" + r.Code + ":" + strconv.Itoa(r.Players) + ":" + strconv.Itoa(r.Spectators) + ":" + strconv.FormatBool(r.Closed))
		for _, p := range r.Members {
			b.WriteString("," + p.ID + "=" + p.State)
		}
	}
	return b.String()
}

// cloneRooms copies rooms and their members.
func cloneRooms(rooms []Room) []Room {
	c := make([]Room, len(rooms))
	for i, r := range rooms {
		c[i] = r
		c[i].Members = append([]Player(nil), r.Members...)
	}
	return c
}
