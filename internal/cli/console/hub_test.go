package console

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSource is a Provider whose snapshot the test sets.
type fakeSource struct {
	mu    sync.Mutex
	snap  Snapshot
	calls int
}

func (f *fakeSource) Snapshot(time.Time) Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	s := f.snap
	s.Rooms = append([]Room(nil), f.snap.Rooms...)
	return s
}

func (f *fakeSource) set(fn func(s *Snapshot)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.snap)
}

func (f *fakeSource) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// fakeTicker is a ticker the test drives.
type fakeTicker struct {
	c       chan time.Time
	started chan struct{}
	stopped chan struct{}
}

func newFakeTicker() *fakeTicker {
	return &fakeTicker{c: make(chan time.Time), started: make(chan struct{}, 4), stopped: make(chan struct{}, 4)}
}

func (f *fakeTicker) make(time.Duration) (<-chan time.Time, func()) {
	f.started <- struct{}{}
	return f.c, func() { f.stopped <- struct{}{} }
}

// next reads the next event of s within a second of real time.
func next(t *testing.T, s *Sub) (event string, data []byte) {
	t.Helper()
	select {
	case b := <-s.C:
		ev, rest, _ := bytes.Cut(b, []byte("\ndata: "))
		return strings.TrimPrefix(string(ev), "event: "), bytes.TrimSpace(rest)
	case <-time.After(time.Second):
		t.Fatal("no event")
	}
	return "", nil
}

func none(t *testing.T, s *Sub) {
	t.Helper()
	select {
	case b := <-s.C:
		t.Fatalf("unexpected event %s", b)
	default:
	}
}

type snapshotEvent struct {
	Snapshot Snapshot `json:"snapshot"`
	Sample   *Sample  `json:"sample"`
}

// TestHubIdleWithoutWatchers: nobody watching, no loop and no poll; the
// first watcher starts the loop (one poll at once: history, then the
// snapshot), the last one to go stops it, and polls stop with it.
func TestHubIdleWithoutWatchers(t *testing.T) {
	src := &fakeSource{snap: Snapshot{Source: "relay", Rooms: []Room{{Code: "AAAAAA", Players: 1}}}}
	ft := newFakeTicker()
	t0 := time.Unix(1000, 0)
	h := NewHub(src, HubOptions{Ticker: ft.make, Now: func() time.Time { return t0 }})
	if h.Watching() || src.count() != 0 {
		t.Fatalf("idle hub: watching %v, polls %d", h.Watching(), src.count())
	}
	s := h.Subscribe(false)
	<-ft.started
	if ev, _ := next(t, s); ev != "history" {
		t.Fatalf("first event %q, want history", ev)
	}
	ev, data := next(t, s)
	var m snapshotEvent
	if err := json.Unmarshal(data, &m); ev != "snapshot" || err != nil || len(m.Snapshot.Rooms) != 1 || m.Sample == nil || m.Snapshot.Now != t0.UnixMilli() {
		t.Fatalf("second event %q %s (%v)", ev, data, err)
	}
	h.Unsubscribe(s)
	select {
	case <-ft.stopped:
	case <-time.After(time.Second):
		t.Fatal("the loop did not stop with the last watcher")
	}
	if h.Watching() {
		t.Fatal("watching after the last watcher left")
	}
	n := src.count()
	select {
	case ft.c <- t0.Add(time.Second):
		t.Fatal("a stopped loop took a tick")
	case <-time.After(50 * time.Millisecond):
	}
	if src.count() != n {
		t.Fatalf("polled %d times after the last watcher left", src.count()-n)
	}
}

// TestHubSendsChangesAtOnce: between one-second samples, a snapshot goes
// out only when the rooms or their members changed; rates come from the
// counters of two samples a second apart.
func TestHubSendsChangesAtOnce(t *testing.T) {
	src := &fakeSource{snap: Snapshot{Source: "serve", BytesIn: 1000, Rooms: []Room{{Code: "AAAAAA", Players: 1, BytesIn: 100,
		Members: []Player{{ID: "p1", State: "playing", BytesOut: 10}}}}}}
	t0 := time.Unix(1000, 0)
	h := NewHub(src, HubOptions{Interval: 250 * time.Millisecond, Ticker: func(time.Duration) (<-chan time.Time, func()) {
		return nil, func() {} // the test steps by hand
	}, Now: func() time.Time { return t0 }})
	s := h.Subscribe(false)
	defer h.Unsubscribe(s)
	next(t, s) // history
	next(t, s) // the first snapshot, taken at t0 by the loop
	h.Step(t0.Add(250 * time.Millisecond))
	none(t, s) // nothing changed, no sample due
	src.set(func(sn *Snapshot) {
		sn.Rooms = []Room{{Code: "AAAAAA", Players: 0, BytesIn: 300}}
		sn.BytesIn = 3000
		sn.Refusals = map[string]uint64{"full": 4}
	})
	h.Step(t0.Add(500 * time.Millisecond))
	_, data := next(t, s)
	var m snapshotEvent
	if err := json.Unmarshal(data, &m); err != nil || m.Sample != nil || len(m.Snapshot.Rooms[0].Members) != 0 {
		t.Fatalf("after a player left: %s (%v)", data, err)
	}
	h.Step(t0.Add(time.Second))
	_, data = next(t, s)
	m = snapshotEvent{}
	if err := json.Unmarshal(data, &m); err != nil || m.Sample == nil {
		t.Fatalf("a second later: %s (%v)", data, err)
	}
	if m.Sample.BytesPerSec != 2000 || m.Sample.Refusals["full"] != 4 || m.Sample.Players != 0 {
		t.Errorf("sample %+v, want 2000 bytes/s and 4 full refusals/s", *m.Sample)
	}
	if r := m.Snapshot.Rooms[0]; r.InPerSec == nil || *r.InPerSec != 200 {
		t.Errorf("room rate %v, want 200 bytes/s in", r.InPerSec)
	}
	if got := len(h.History()); got != 2 {
		t.Errorf("%d samples kept, want 2", got)
	}
}

// TestHubSlowWatcherDoesNotBlock: a watcher that reads nothing misses
// events, and the others still get theirs.
func TestHubSlowWatcherDoesNotBlock(t *testing.T) {
	src := &fakeSource{snap: Snapshot{Source: "relay"}}
	t0 := time.Unix(1000, 0)
	h := NewHub(src, HubOptions{Ticker: func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }, Now: func() time.Time { return t0 }})
	slow := h.Subscribe(false)
	defer h.Unsubscribe(slow)
	for i := 1; i <= 50; i++ {
		h.Step(t0.Add(time.Duration(i) * time.Second))
	}
	fast := h.Subscribe(false)
	defer h.Unsubscribe(fast)
	h.Step(t0.Add(51 * time.Second))
	if ev, _ := next(t, fast); ev != "history" {
		t.Fatalf("new watcher's first event %q", ev)
	}
	if ev, _ := next(t, fast); ev != "snapshot" {
		t.Fatalf("new watcher's second event %q", ev)
	}
	if len(slow.C) != cap(slow.C) {
		t.Fatalf("slow watcher holds %d events, want a full queue of %d", len(slow.C), cap(slow.C))
	}
}
