package webrtc

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// throttledChannel is a data channel whose reader takes nothing until the
// test drains it: its buffered amount only grows with sends.
type throttledChannel struct {
	mu       sync.Mutex
	buffered uint64
	sent     [][]byte
	low      func()
}

func (c *throttledChannel) BufferedAmount() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buffered
}

func (c *throttledChannel) Send(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buffered += uint64(len(b))
	c.sent = append(c.sent, append([]byte(nil), b...))
	return nil
}

func (c *throttledChannel) SetBufferedAmountLowThreshold(uint64) {}

func (c *throttledChannel) OnBufferedAmountLow(f func()) { c.low = f }

// drain lets the reader take everything buffered.
func (c *throttledChannel) drain() {
	c.mu.Lock()
	c.buffered = 0
	c.mu.Unlock()
	c.low()
}

func (c *throttledChannel) sentIDs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []int
	for _, b := range c.sent {
		ids = append(ids, int(b[0])|int(b[1])<<8)
	}
	return ids
}

// TestPacerDropsOldest: behind a channel that takes nothing, the queue
// holds at most SendQueue datagrams, each new one dropping the oldest;
// once the channel drains, the newest SendQueue go, in order.
func TestPacerDropsOldest(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	const limit, n = 8, 100
	dc := &throttledChannel{buffered: 1000}
	var stats sendCounters
	p := newDCPeer(dc, Config{HighWater: 1000, SendQueue: limit}, &stats)
	go p.sendLoop()
	defer p.stop()
	msg := make([]byte, 100)
	for i := range n {
		msg[0], msg[1] = byte(i), byte(i>>8)
		p.send(msg)
		if w := stats.waiting.Load(); w > limit || w != int64(min(i+1, limit)) {
			t.Fatalf("after %d sends: %d waiting, want %d (bound %d)", i+1, w, min(i+1, limit), limit)
		}
	}
	if d, q, m := stats.dropped.Load(), stats.queued.Load(), stats.waitingMax.Load(); d != n-limit || q != n || m != limit {
		t.Fatalf("dropped %d queued %d max waiting %d, want %d, %d, %d", d, q, m, n-limit, n, limit)
	}
	if len(dc.sentIDs()) != 0 {
		t.Fatalf("sent %v through a full channel", dc.sentIDs())
	}
	dc.drain()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	testutil.WaitUntil(ctx, t, "the queue to go", func() bool { return stats.waiting.Load() == 0 })
	ids := dc.sentIDs()
	if len(ids) != limit {
		t.Fatalf("sent %v, want the newest %d", ids, limit)
	}
	for k, id := range ids {
		if id != n-limit+k {
			t.Fatalf("sent %v, want %d..%d in order", ids, n-limit, n-1)
		}
	}
}

// TestPacerDropSparesTheOneBeingSent: a drop while sendLoop hands the
// oldest datagram to the channel drops the next one, not that one.
func TestPacerDropSparesTheOneBeingSent(t *testing.T) {
	dc := &throttledChannel{}
	var stats sendCounters
	p := newDCPeer(dc, Config{HighWater: 1000, SendQueue: 2}, &stats)
	p.q = [][]byte{{0, 0}, {1, 0}, {2, 0}}
	p.sending = true // q[0] is on its way
	stats.waiting.Store(3)
	dc.buffered = 1000
	p.send([]byte{3, 0})
	if len(p.q)-p.head != 3 || p.q[p.head][0] != 0 || p.q[p.head+1][0] != 2 || p.q[p.head+2][0] != 3 {
		t.Fatalf("queue %v (head %d), want 0 (being sent), 2, 3", p.q, p.head)
	}
	if stats.dropped.Load() != 1 {
		t.Fatalf("dropped %d, want 1", stats.dropped.Load())
	}
}

// TestWebRTCCongestedQueue: a real pion pair whose association can hold
// only 2 KiB in flight (a congested link, for the pacer) gets a burst of
// 3,000 datagrams: the peer's send queue stays within its bound, the
// oldest waiting ones are dropped and counted, and the newest arrive.
func TestWebRTCCongestedQueue(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	const limit, n = 64, 3000
	cfg := Config{Loopback: true, HighWater: 2048, SendQueue: limit}
	hcfg := cfg
	hcfg.RecvRate = -1 // the send queue tested, not the per-peer receive rate
	host, err := NewHost(hcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	p, stop := webrtcConnect(t, host, cfg, "congested")
	defer stop()
	defer p.Close()
	msg := make([]byte, 100)
	for i := range n {
		msg[0], msg[1] = byte(i), byte(i>>8)
		if err := p.Send(p.RemoteAddr(), msg); err != nil {
			t.Fatal(err)
		}
		if w := p.Stats().SendWaiting; w > limit+1 {
			t.Fatalf("after %d sends %d wait, over the bound %d (+1 being sent)", i+1, w, limit)
		}
	}
	seen := make(map[int]bool)
	buf := make([]byte, transport.MaxDatagram)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	testutil.WaitUntil(ctx, t, "the newest datagram", func() bool {
		for {
			k, _, err := host.Recv(buf)
			if err != nil {
				return seen[n-1]
			}
			if k == len(msg) {
				seen[int(buf[0])|int(buf[1])<<8] = true
			}
		}
	})
	st := p.Stats()
	t.Logf("sent %d, arrived %d; queued %d, dropped %d, at most %d waiting (bound %d)",
		n, len(seen), st.SendQueued, st.SendDropped, st.SendWaitingMax, limit)
	if st.SendWaitingMax > limit || st.SendDropped == 0 || st.SendQueued < st.SendDropped {
		t.Fatalf("stats %+v: want at most %d waiting and some dropped", st, limit)
	}
	for i := n - limit; i < n; i++ {
		if !seen[i] {
			t.Fatalf("datagram %d, one of the newest %d, did not arrive (dropped %d)", i, limit, st.SendDropped)
		}
	}
	oldestDropped := -1
	for i := range n {
		if !seen[i] {
			oldestDropped = i
			break
		}
	}
	if oldestDropped < 0 || oldestDropped >= n-limit {
		t.Fatalf("nothing before the newest %d was dropped (first missing %d)", limit, oldestDropped)
	}
}
