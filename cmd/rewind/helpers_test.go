package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Helpers shared by the command tests: a goroutine leak check, and the
// sand test client with the host's side of the hash checks used by the
// match tests over UDP (udp_match_test.go) and over relay rooms
// (room_match_test.go).

// checkLeaks fails the test if goroutines started during it outlive it
// by more than a few seconds (pion and net/http wind down asynchronously).
func checkLeaks(t *testing.T) {
	t.Helper()
	// os/signal starts one goroutine for good on first use (by play).
	_, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	stopSignals()
	testutil.CheckGoroutines(t, 10*time.Second)
}

// sandTestGrid is the size of the sand grid the match tests play on.
const sandTestGrid = 32

// sandTestClient is a sand client of package client playing bots over a
// real transport, driven by its own goroutine (as `rewind play` drives
// it) until stopped, and recording the hash of every tick it verifies.
type sandTestClient struct {
	c      *client.Client[sand.Input]
	mu     sync.Mutex // held around every use of c while driven
	hashes map[uint32]uint64
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// startSandTestClient starts a client over conn that says hello with a
// rejoin cookie (none if nil) and drives it until stop.
func startSandTestClient(t *testing.T, conn transport.Conn, cookie []byte) *sandTestClient {
	t.Helper()
	p := &sandTestClient{hashes: map[uint32]uint64{}, done: make(chan error, 1)}
	c, err := client.New[sand.Input](sand.New(sandTestGrid), conn, client.Config{
		OnVerified: func(tick uint32, hash uint64) { p.hashes[tick] = hash }, // under p.mu (inside Update)
		Cookie:     cookie,
	})
	if err != nil {
		t.Fatal(err)
	}
	c.SetInputFunc(func(tick uint32) sand.Input {
		id, _ := c.Player()
		return sand.Bot(id, tick)
	})
	p.c = c
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		p.done <- rewind.Drive(ctx, updaterFunc(func(now time.Time) error {
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.c.Update(now)
		}), 4*time.Millisecond, nil, conn.Ready())
	}()
	return p
}

// updaterFunc makes a function a rewind.Updater.
type updaterFunc func(time.Time) error

func (f updaterFunc) Update(now time.Time) error { return f(now) }

func (p *sandTestClient) stats() client.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c.Stats()
}

// hashAt returns the hash the client verified for tick, if it did.
func (p *sandTestClient) hashAt(tick uint32) (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.hashes[tick]
	return h, ok
}

// stop stops driving the client (once); it says nothing more.
func (p *sandTestClient) stop(t *testing.T) {
	p.once.Do(func() {
		p.cancel()
		if err := <-p.done; !errors.Is(err, context.Canceled) {
			t.Errorf("player: %v", err)
		}
	})
}

// closeClient says bye (it does not close the transport).
func (p *sandTestClient) closeClient() {
	p.mu.Lock()
	p.c.Close()
	p.mu.Unlock()
}

// check compares the hash of every tick the client verified with the
// server's (serverHash, called under p.mu), and returns how many ticks it
// checked.
func (p *sandTestClient) check(t *testing.T, name string, serverHash func(tick uint32) (uint64, bool)) int {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for tick, h := range p.hashes {
		if sh, ok := serverHash(tick); !ok || sh != h {
			t.Errorf("%s: tick %d hash %016x, server %016x (kept %v)", name, tick, h, sh, ok)
		}
	}
	return len(p.hashes)
}

// testHashes records the server's hash of every tick of its first match
// (onTick is its server.Config.OnTick). It is safe for concurrent use.
type testHashes struct {
	mu sync.Mutex
	m  map[uint32]uint64
}

func newTestHashes() *testHashes { return &testHashes{m: map[uint32]uint64{}} }

func (th *testHashes) onTick(tick uint32, _ *world.World, hash uint64) {
	th.mu.Lock()
	if _, ok := th.m[tick]; !ok { // the first match only
		th.m[tick] = hash
	}
	th.mu.Unlock()
}

// hash returns the server's hash of tick, if it ran it.
func (th *testHashes) hash(tick uint32) (uint64, bool) {
	th.mu.Lock()
	defer th.mu.Unlock()
	h, ok := th.m[tick]
	return h, ok
}

// testHostRun is a host (a rewind.Host or a rooms.Hosted) run by a goroutine
// until stop, or until the context it was started with ends.
type testHostRun struct {
	host interface {
		Run(context.Context) error
		Close() error
	}
	cancel context.CancelFunc
	done   chan error
}

func runTestHost(ctx context.Context, host interface {
	Run(context.Context) error
	Close() error
}) *testHostRun {
	r := &testHostRun{host: host, done: make(chan error, 1)}
	ctx, r.cancel = context.WithCancel(ctx)
	go func() { r.done <- host.Run(ctx) }()
	return r
}

// stop stops running the host and closes it.
func (r *testHostRun) stop(t *testing.T) {
	r.cancel()
	if err := <-r.done; err != nil {
		t.Errorf("host: %v", err)
	}
	if err := r.host.Close(); err != nil {
		t.Errorf("host close: %v", err)
	}
}
