package webrtc

import (
	"sync"
	"sync/atomic"
	"time"
)

// Stats counts a Conn's (a Host's or a Peer's) datagrams that waited or
// were dropped, over all its peers since it was made.
type Stats struct {
	// SendQueued counts datagrams that waited in a peer's send queue for
	// the data channel to drain (the others went at once).
	SendQueued uint64
	// SendDropped counts datagrams dropped from a full send queue: each
	// time the oldest waiting one, for the datagram being sent.
	SendDropped uint64
	// SendWaiting is the datagrams waiting now, over all peers, and
	// SendWaitingMax the most that ever waited for one peer: at most
	// Config.SendQueue, besides the one being handed to the channel.
	SendWaiting, SendWaitingMax int64
	// RecvDropped counts received datagrams dropped because Config.RecvQueue
	// of them were waiting for Recv, or their peer held its share of the
	// queue while others had datagrams waiting (recvshare.go).
	RecvDropped uint64
	// RecvTooLarge counts received datagrams dropped for being larger
	// than transport.MaxDatagram (no sender makes one).
	RecvTooLarge uint64
	// RecvRateLimited counts received datagrams dropped over their
	// peer's Config.RecvRate; PeersCutOff the peers whose connection was
	// closed for it (recvrate.go).
	RecvRateLimited, PeersCutOff uint64
}

// sendCounters are the send side of Stats, shared by a Conn's pacers.
type sendCounters struct {
	queued, dropped     atomic.Uint64
	waiting, waitingMax atomic.Int64
}

// dataChannel is what a pacer needs of a data channel (*pion.DataChannel;
// the tests give it a channel of their own that drains when they say).
type dataChannel interface {
	BufferedAmount() uint64
	Send(b []byte) error
	SetBufferedAmountLowThreshold(th uint64)
	OnBufferedAmountLow(f func())
}

// dcPeer is one open data channel and its pacer.
type dcPeer struct {
	dc        dataChannel
	highWater uint64
	limit     int
	stats     *sendCounters
	wake      chan struct{}
	low       chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
	finished  chan struct{}

	// mu guards the queue: q[head:] waits, oldest first; while sending,
	// q[head] is on its way to the channel (sendLoop sends it outside the
	// lock and removes it after, so that order holds) and is not dropped.
	// The queue grows on demand up to limit datagrams, so an idle peer
	// costs nothing.
	mu      sync.Mutex
	q       [][]byte
	head    int
	sending bool
}

func newDCPeer(dc dataChannel, cfg Config, stats *sendCounters) *dcPeer {
	p := &dcPeer{
		dc:        dc,
		highWater: uint64(cfg.HighWater),
		limit:     max(cfg.SendQueue, 1),
		stats:     stats,
		wake:      make(chan struct{}, 1),
		low:       make(chan struct{}, 1),
		done:      make(chan struct{}),
		finished:  make(chan struct{}),
	}
	dc.SetBufferedAmountLowThreshold(uint64(cfg.HighWater / webrtcLowWaterDivisor))
	dc.OnBufferedAmountLow(func() {
		select {
		case p.low <- struct{}{}:
		default:
		}
	})
	return p
}

// send sends b now if the channel has room and nothing waits, else queues a
// copy, dropping the oldest waiting datagram (not one being sent) when the
// queue is full.
func (p *dcPeer) send(b []byte) {
	p.mu.Lock()
	queued := len(p.q) - p.head
	if queued == 0 && p.dc.BufferedAmount() < p.highWater {
		p.mu.Unlock()
		_ = p.dc.Send(b) // a closing channel drops, as the network would
		return
	}
	waiting := queued // not counting the one being sent
	if p.sending {
		waiting--
	}
	if waiting >= p.limit {
		p.dropOldest()
		waiting--
	}
	if p.head > 0 && len(p.q) == cap(p.q) {
		// Slide the waiting ones to the front rather than grow.
		n := copy(p.q, p.q[p.head:])
		clear(p.q[n:])
		p.q, p.head = p.q[:n], 0
	}
	p.q = append(p.q, append([]byte(nil), b...))
	p.stats.queued.Add(1)
	if w := int64(waiting + 1); w > p.stats.waitingMax.Load() {
		p.stats.waitingMax.Store(w) // only grows; a race loses a sample, not the bound
	}
	p.stats.waiting.Add(1)
	p.mu.Unlock()
	if queued == 0 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// dropOldest drops the oldest waiting datagram that is not being sent.
// mu is held and one waits besides any being sent.
func (p *dcPeer) dropOldest() {
	if p.sending {
		// q[head] is being sent: drop the one after it, moving the one
		// being sent up so that sendLoop still finds it at head.
		p.q[p.head+1] = p.q[p.head]
	}
	p.q[p.head] = nil
	p.head++
	p.stats.dropped.Add(1)
	p.stats.waiting.Add(-1)
}

// sendLoop drains the queue while the channel has room.
func (p *dcPeer) sendLoop() {
	defer close(p.finished)
	timer := time.NewTimer(webrtcPacerFallback)
	defer timer.Stop()
	for {
		p.mu.Lock()
		if p.head == len(p.q) {
			p.q, p.head = p.q[:0], 0
			p.mu.Unlock()
			select {
			case <-p.wake:
				continue
			case <-p.done:
				return
			}
		}
		p.mu.Unlock()
		for p.dc.BufferedAmount() >= p.highWater {
			timer.Reset(webrtcPacerFallback)
			select {
			case <-p.low:
			case <-timer.C:
			case <-p.done:
				return
			}
		}
		p.mu.Lock()
		b := p.q[p.head] // stays queued until sent, so send keeps order
		p.sending = true
		p.mu.Unlock()
		_ = p.dc.Send(b)
		p.mu.Lock()
		p.q[p.head] = nil
		p.head++
		p.sending = false
		p.stats.waiting.Add(-1)
		p.mu.Unlock()
	}
}

// stop ends the sender goroutine and waits for it.
func (p *dcPeer) stop() {
	p.stopOnce.Do(func() { close(p.done) })
	<-p.finished
	p.mu.Lock()
	p.stats.waiting.Add(-int64(len(p.q) - p.head))
	p.q, p.head = nil, 0
	p.mu.Unlock()
}
