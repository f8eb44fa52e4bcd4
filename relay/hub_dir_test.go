package relay

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// gateDirectory is a roomdir.Memory whose calls, while armed, wait
// at a gate: each announces itself on entered and goes on when the test
// sends on release.
type gateDirectory struct {
	*roomdir.Memory
	mu       sync.Mutex
	armed    bool
	entered  chan string
	released chan struct{}
}

func newGateDirectory() *gateDirectory {
	return &gateDirectory{Memory: roomdir.NewMemory(5 * time.Minute),
		entered: make(chan string), released: make(chan struct{})}
}

func (g *gateDirectory) arm(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed = on
}

func (g *gateDirectory) gate(call string) {
	g.mu.Lock()
	armed := g.armed
	g.mu.Unlock()
	if armed {
		g.entered <- call
		<-g.released
	}
}

func (g *gateDirectory) Claim(rec roomdir.Record, now time.Time) error {
	g.gate("claim")
	return g.Memory.Claim(rec, now)
}

func (g *gateDirectory) Lookup(code string, now time.Time) (roomdir.Record, bool, error) {
	g.gate("lookup")
	return g.Memory.Lookup(code, now)
}

func (g *gateDirectory) End(code string, now time.Time) {
	g.gate("end")
	g.Memory.End(code, now)
}

func (g *gateDirectory) Remove(code string) {
	g.gate("remove")
	g.Memory.Remove(code)
}

// TestHubDirectoryOutsideLock: every directory call (the claim of a host,
// the lookup of a join, the End of an end, the Remove of a host gone) runs
// with the hub's lock released, so a slow directory stalls only the
// connection that waits for it: while one waits, another room's host is
// pinged and answers, and a player of that room signals its host.
func TestHubDirectoryOutsideLock(t *testing.T) {
	dir := newGateDirectory()
	h := newTestHub(RoomConfig{Directory: dir})
	other, otherRoom := hostRoom(t, h, "")
	player := joinRoom(t, h, "10.0.0.5", otherRoom.Code, t0)
	wantJoined(t, player)
	next(t, other) // player p1

	// stalled runs send on c in a goroutine while the directory is armed,
	// checks at the gate that the hub's lock is free and that the other
	// room is served meanwhile, then lets the call go on.
	stalled := func(name, want string, send func()) {
		t.Helper()
		dir.arm(true)
		done := make(chan struct{})
		go func() {
			defer close(done)
			send()
		}()
		if call := <-dir.entered; call != want {
			t.Fatalf("%s: directory call %q, want %q", name, call, want)
		}
		if !h.mu.TryLock() {
			t.Fatalf("%s: the hub's lock is held during the directory's %s", name, want)
		}
		h.mu.Unlock()
		dir.arm(false)
		sendMsg(h, player, roomproto.Msg{Type: roomproto.MsgSignal, Signal: &webrtc.Signal{Kind: webrtc.SignalOffer, SDP: "v=0"}}, t0)
		if m := next(t, other); m.Type != roomproto.MsgSignal || m.From != "p1" {
			t.Fatalf("%s: the other room's host got %+v while the directory waited", name, m)
		}
		dir.released <- struct{}{}
		<-done
	}

	host := mustConnect(t, h, "10.0.0.2")
	stalled("host", "claim", func() { sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: "ABCDEF"}, t0) })
	if m := next(t, host); m.Type != roomproto.MsgHosted || m.Code != "ABCDEF" {
		t.Fatalf("host got %+v", m)
	}
	joiner := mustConnect(t, h, "10.0.0.3")
	stalled("join", "lookup", func() { sendMsg(h, joiner, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ABCDEF"}, t0) })
	wantJoined(t, joiner)
	next(t, host) // player p1

	// A host that goes: its room's Remove runs after the lock is released.
	stalled("host gone", "remove", func() { h.disconnect(host, t0) })
	if _, ok, _ := dir.Memory.Lookup("ABCDEF", t0); ok {
		t.Fatal("the room of a host gone is still in the directory")
	}
	// An end: the lookup, then the End, both outside the lock.
	ender := mustConnect(t, h, "10.0.0.4")
	dir.arm(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sendMsg(h, ender, roomproto.Msg{Type: roomproto.MsgEnd, Code: otherRoom.Code, Key: otherRoom.Key}, t0)
	}()
	for _, want := range []string{"lookup", "end"} {
		if call := <-dir.entered; call != want {
			t.Fatalf("end: directory call %q, want %q", call, want)
		}
		if !h.mu.TryLock() {
			t.Fatalf("end: the hub's lock is held during the directory's %s", want)
		}
		h.mu.Unlock()
		dir.released <- struct{}{}
	}
	<-done
	dir.arm(false)
	if rec, ok, _ := dir.Lookup(otherRoom.Code, t0); !ok || !rec.Ended {
		t.Fatalf("ended room in the directory: %+v %v", rec, ok)
	}
	if m := next(t, player); m.Type != roomproto.MsgEnded {
		t.Fatalf("player got %+v, want ended", m)
	}
}

// TestHubDirectoryOutsideLockClosed: a host whose connection closes while
// the directory claims its code does not leave the code claimed.
func TestHubDirectoryOutsideLockClosed(t *testing.T) {
	dir := newGateDirectory()
	h := newTestHub(RoomConfig{Directory: dir})
	host := mustConnect(t, h, "10.0.0.2")
	dir.arm(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: "ABCDEF"}, t0)
	}()
	<-dir.entered
	h.disconnect(host, t0)
	dir.arm(false)
	dir.released <- struct{}{}
	<-done
	if _, ok, _ := dir.Lookup("ABCDEF", t0); ok {
		t.Fatal("the code of a host that closed while claiming it stays claimed")
	}
	if _, rooms := h.counts(); rooms != 0 {
		t.Fatalf("%d rooms", rooms)
	}
}

// TestHubConcurrentDirectory runs hosts, joiners, ends and departures on
// many goroutines at once against one hub (go test -race): every room
// still hosted is in the directory, and none of the others is live there.
func TestHubConcurrentDirectory(t *testing.T) {
	dir := roomdir.NewMemory(5 * time.Minute)
	h := newTestHub(RoomConfig{Directory: dir, MsgBurst: 1000, JoiningPerAddr: 1000, ConnsPerAddr: 1000})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				host := mustConnect(t, h, fmt.Sprintf("10.1.%d.1", g))
				code := fmt.Sprintf("G%dXY%c%c", g+2, roomcode.Alphabet[i/20], roomcode.Alphabet[i%20])
				sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: code}, t0)
				p := mustConnect(t, h, fmt.Sprintf("10.1.%d.2", g))
				sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: code}, t0)
				switch i % 3 {
				case 0:
					sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgEnd, Code: code, Key: roomKey(h, code)}, t0)
				case 1:
					h.disconnect(host, t0)
				}
				h.disconnect(p, t0)
				h.tick(t0)
			}
		})
	}
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.rooms) != 8*13 { // i%3 == 2 keeps its host: 13 of 40 per goroutine
		t.Errorf("%d rooms hosted, want %d", len(h.rooms), 8*13)
	}
	for code := range h.rooms {
		if rec, ok, _ := dir.Lookup(code, t0); !ok || rec.Ended {
			t.Errorf("hosted room %s: directory %+v %v", code, rec, ok)
		}
	}
	if n := dir.Len(); n != 8*13+8*14 { // i%3 == 0 ended: 14 per goroutine
		t.Errorf("%d rooms in the directory, want %d hosted + %d ended", n, 8*13, 8*14)
	}
}

// roomKey returns the key of the room hosted here under code ("" if none).
func roomKey(h *roomHub, code string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[code]; r != nil {
		return r.key
	}
	return ""
}
