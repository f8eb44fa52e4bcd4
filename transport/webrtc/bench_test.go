//go:build !js

package webrtc

import (
	"errors"
	"net"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	pion "github.com/pion/webrtc/v4"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// Benchmarks of the WebRTC transport against raw pion data channels with
// the same options (Ordered: false, MaxRetransmits: 0) in the same run, on
// 127.0.0.1. Results and commands: docs/benchmarks.md, "Relay and WebRTC".

// rawPair is two pion PeerConnections joined by one data channel, with
// received messages handed to channels (as a game loop would take them).
type rawPair struct {
	pcA, pcB *pion.PeerConnection
	a, b     *pion.DataChannel
	inA, inB chan []byte
}

func newRawPair(tb testing.TB) *rawPair {
	tb.Helper()
	var se pion.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	se.SetNetworkTypes([]pion.NetworkType{pion.NetworkTypeUDP4})
	api := pion.NewAPI(pion.WithSettingEngine(se))
	r := &rawPair{inA: make(chan []byte, 1<<16), inB: make(chan []byte, 1<<16)}
	var err error
	if r.pcA, err = api.NewPeerConnection(pion.Configuration{}); err != nil {
		tb.Fatal(err)
	}
	if r.pcB, err = api.NewPeerConnection(pion.Configuration{}); err != nil {
		tb.Fatal(err)
	}
	openB := make(chan *pion.DataChannel, 1)
	r.pcB.OnDataChannel(func(dc *pion.DataChannel) {
		dc.OnMessage(func(m pion.DataChannelMessage) {
			select {
			case r.inB <- m.Data:
			default:
			}
		})
		dc.OnOpen(func() { openB <- dc })
	})
	if r.a, err = r.pcA.CreateDataChannel("raw", dataChannelInit()); err != nil {
		tb.Fatal(err)
	}
	openA := make(chan struct{})
	r.a.OnOpen(func() { close(openA) })
	r.a.OnMessage(func(m pion.DataChannelMessage) {
		select {
		case r.inA <- m.Data:
		default:
		}
	})
	offer, _ := r.pcA.CreateOffer(nil)
	gatherA := pion.GatheringCompletePromise(r.pcA)
	if err := r.pcA.SetLocalDescription(offer); err != nil {
		tb.Fatal(err)
	}
	<-gatherA
	if err := r.pcB.SetRemoteDescription(*r.pcA.LocalDescription()); err != nil {
		tb.Fatal(err)
	}
	answer, _ := r.pcB.CreateAnswer(nil)
	gatherB := pion.GatheringCompletePromise(r.pcB)
	if err := r.pcB.SetLocalDescription(answer); err != nil {
		tb.Fatal(err)
	}
	<-gatherB
	if err := r.pcA.SetRemoteDescription(*r.pcB.LocalDescription()); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-openA:
	case <-time.After(10 * time.Second):
		tb.Fatal("raw data channel did not open")
	}
	r.b = <-openB
	return r
}

func (r *rawPair) close() {
	r.pcA.Close()
	r.pcB.Close()
}

// transportPair is a Host and one Peer.
type transportPair struct {
	host *Host
	peer *Peer
	stop func()
}

func newTransportPair(tb testing.TB) *transportPair {
	tb.Helper()
	return newTransportPairConfig(tb, Config{Loopback: true, SendQueue: oldSendQueue})
}

// oldSendQueue is the send queue the figures of docs/benchmarks.md
// before the bounded queue were measured with (the default then): a burst
// of 10,000 fits, so the pacer alone is measured.
const oldSendQueue = 16384

func newTransportPairConfig(tb testing.TB, cfg Config) *transportPair {
	tb.Helper()
	testutil.SkipSockets(tb)
	hcfg := cfg
	hcfg.RecvRate = -1 // the transport measured, not the per-peer receive rate
	host, err := NewHost(hcfg)
	if err != nil {
		tb.Fatal(err)
	}
	peer, stop := webrtcConnect(tb, host, cfg, "bench")
	return &transportPair{host: host, peer: peer, stop: stop}
}

func (t *transportPair) close() {
	t.peer.Close()
	t.stop()
	t.host.Close()
}

// recvTimeout receives one datagram on c within d, or reports false.
func recvTimeout(c transport.Conn, buf []byte, d time.Duration) bool {
	var timer *time.Timer
	for {
		if _, _, err := c.Recv(buf); err == nil {
			return true
		} else if !errors.Is(err, transport.ErrWouldBlock) {
			return false
		}
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		}
		select {
		case <-c.Ready():
		case <-timer.C:
			return false
		}
	}
}

// benchPairs sets up a raw pion pair and a transport pair with echo loops
// on their far ends, for benchmarks that interleave the two: the machine is
// shared and noisy, so raw and transport run in alternating blocks and are
// compared within one run.
type benchPairs struct {
	raw  *rawPair
	tr   *transportPair
	buf  []byte
	done chan struct{}
	wg   sync.WaitGroup
}

func newBenchPairs(b *testing.B, echo bool) *benchPairs {
	testutil.SkipSockets(b)
	p := &benchPairs{raw: newRawPair(b), tr: newTransportPair(b), buf: make([]byte, transport.MaxDatagram), done: make(chan struct{})}
	if echo {
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			for {
				select {
				case m := <-p.raw.inB:
					_ = p.raw.b.Send(m)
				case <-p.done:
					return
				}
			}
		}()
		go func() {
			defer p.wg.Done()
			buf := make([]byte, transport.MaxDatagram)
			for {
				n, from, err := p.tr.host.Recv(buf)
				if err == nil {
					_ = p.tr.host.Send(from, buf[:n])
					continue
				}
				select {
				case <-p.tr.host.Ready():
				case <-p.done:
					return
				}
			}
		}()
	}
	return p
}

func (p *benchPairs) close() {
	close(p.done)
	p.wg.Wait()
	p.raw.close()
	p.tr.close()
}

func (p *benchPairs) rawRecv(in chan []byte, d time.Duration) bool {
	select {
	case <-in:
		return true
	case <-time.After(d):
		return false
	}
}

// webrtcMedian returns the median of xs (which it sorts).
func webrtcMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// pairedReport reports the median of raw and transport block figures and
// the median of their per-pair ratios (pairs ran back to back, so a stall
// of the shared machine spoils one pair, not the figure).
func pairedReport(b *testing.B, raw, tr []float64, unit string, ratio func(r, t float64) float64) {
	ratios := make([]float64, len(raw))
	for i := range raw {
		ratios[i] = ratio(raw[i], tr[i])
	}
	b.ReportMetric(webrtcMedian(append([]float64(nil), raw...)), "raw-"+unit)
	b.ReportMetric(webrtcMedian(append([]float64(nil), tr...)), "transport-"+unit)
	b.ReportMetric(webrtcMedian(ratios), "ratio")
}

// BenchmarkWebRTCRTT: a 32-byte datagram to the far end and back, raw pion
// and transport alternating in blocks of 20 round trips; raw-µs and
// transport-µs are the median block means, and ratio is the median over
// block pairs of raw/transport time (1 = as fast as raw pion, > 1 faster).
func BenchmarkWebRTCRTT(b *testing.B) {
	const block = 20
	p := newBenchPairs(b, true)
	defer p.close()
	msg := make([]byte, 32)
	var raw, tr []float64
	lost := 0
	b.ResetTimer()
	for done := 0; done < b.N; done += 2 * block {
		start := time.Now()
		for range block {
			_ = p.raw.a.Send(msg)
			if !p.rawRecv(p.raw.inA, time.Second) {
				lost++
			}
		}
		raw = append(raw, time.Since(start).Seconds()*1e6/block)
		start = time.Now()
		for range block {
			_ = p.tr.peer.Send(p.tr.peer.RemoteAddr(), msg)
			if !recvTimeout(p.tr.peer, p.buf, time.Second) {
				lost++
			}
		}
		tr = append(tr, time.Since(start).Seconds()*1e6/block)
	}
	pairedReport(b, raw, tr, "µs", func(r, t float64) float64 { return r / t })
	b.ReportMetric(float64(lost), "lost")
}

// BenchmarkWebRTCThroughput: one-way datagrams of 100 bytes in windows of
// 256 (send the window, wait for it to arrive), raw pion and transport
// alternating window by window; raw-dg/s and transport-dg/s are median
// window delivery rates, and ratio is the median over window pairs of
// transport/raw rate.
func BenchmarkWebRTCThroughput(b *testing.B) {
	const window = 256
	p := newBenchPairs(b, false)
	defer p.close()
	msg := make([]byte, 100)
	var raw, tr []float64
	lostRaw, lostTr := 0, 0
	b.ResetTimer()
	for done := 0; done < b.N; done += 2 * window {
		start := time.Now()
		for range window {
			_ = p.raw.a.Send(msg)
		}
		got := 0
		for ; got < window; got++ {
			if !p.rawRecv(p.raw.inB, time.Second) {
				break
			}
		}
		lostRaw += window - got
		raw = append(raw, float64(got)/time.Since(start).Seconds())
		start = time.Now()
		for range window {
			_ = p.tr.peer.Send(p.tr.peer.RemoteAddr(), msg)
		}
		got = 0
		for ; got < window; got++ {
			if !recvTimeout(p.tr.host, p.buf, time.Second) {
				break
			}
		}
		lostTr += window - got
		tr = append(tr, float64(got)/time.Since(start).Seconds())
	}
	pairedReport(b, raw, tr, "dg/s", func(r, t float64) float64 { return t / r })
	b.ReportMetric(float64(lostRaw), "raw-lost")
	b.ReportMetric(float64(lostTr), "transport-lost")
}

// BenchmarkWebRTCBurst: a burst of 10,000 datagrams of 100 bytes sent at
// once; lost% is the share of the burst that never arrives (a datagram
// counts if it arrives before 2 s pass without any; each carries its
// burst's number so late ones from an earlier burst are not counted). raw
// sends straight into the data channel (unpaced); transport goes through
// the pacer.
func BenchmarkWebRTCBurst(b *testing.B) {
	const burst = 10000
	const quiet = 2 * time.Second
	msg := make([]byte, 100)
	run := func(b *testing.B, send func([]byte), recv func() ([]byte, bool)) {
		lost := 0
		for it := range b.N {
			for i := range burst {
				msg[0], msg[1], msg[2] = byte(it), byte(i), byte(i>>8)
				send(msg)
			}
			got := 0
			for got < burst {
				m, ok := recv()
				if !ok {
					break
				}
				if m[0] == byte(it) {
					got++
				}
			}
			lost += burst - got
		}
		b.ReportMetric(100*float64(lost)/float64(b.N*burst), "lost%")
	}
	b.Run("raw-unpaced", func(b *testing.B) {
		r := newRawPair(b)
		defer r.close()
		run(b, func(m []byte) { _ = r.a.Send(m) }, func() ([]byte, bool) {
			select {
			case m := <-r.inB:
				return m, true
			case <-time.After(quiet):
				return nil, false
			}
		})
	})
	b.Run("transport", func(b *testing.B) {
		t := newTransportPair(b)
		defer t.close()
		buf := make([]byte, transport.MaxDatagram)
		run(b, func(m []byte) { _ = t.peer.Send(t.peer.RemoteAddr(), m) },
			func() ([]byte, bool) { return buf, recvTimeout(t.host, buf, quiet) })
	})
}
