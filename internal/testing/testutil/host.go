package testutil

import (
	"context"
	"sync"
	"testing"

	"github.com/rewindnet/rewind/world"
)

// HostHashes records a host's hash of every tick of its first match
// (OnTick is its server.Config.OnTick). It is safe for concurrent use.
type HostHashes struct {
	mu sync.Mutex
	m  map[uint32]uint64
}

// NewHostHashes returns an empty record.
func NewHostHashes() *HostHashes { return &HostHashes{m: map[uint32]uint64{}} }

// OnTick records hash as tick's, unless a tick of that number was
// recorded already (a later match).
func (hh *HostHashes) OnTick(tick uint32, _ *world.World, hash uint64) {
	hh.mu.Lock()
	if _, ok := hh.m[tick]; !ok { // the first match only
		hh.m[tick] = hash
	}
	hh.mu.Unlock()
}

// Hash returns the host's hash of tick (0 if it did not run it).
func (hh *HostHashes) Hash(tick uint32) uint64 {
	hh.mu.Lock()
	defer hh.mu.Unlock()
	return hh.m[tick]
}

// Ticks returns how many ticks were recorded.
func (hh *HostHashes) Ticks() int {
	hh.mu.Lock()
	defer hh.mu.Unlock()
	return len(hh.m)
}

// RunHost runs h (a rewind.Host or rooms.Hosted) in a goroutine until
// stop, which waits for Run to return and fails the test if it failed.
func RunHost(ctx context.Context, t testing.TB, h interface{ Run(context.Context) error }) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	return func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("host: %v", err)
		}
	}
}
