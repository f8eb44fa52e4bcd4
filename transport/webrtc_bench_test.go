package transport

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// Benchmarks of the WebRTC transport against raw pion data channels with
// the same options (Ordered: false, MaxRetransmits: 0) in the same run, on
// 127.0.0.1. Results and commands: docs/benchmarks.md, "Relay and WebRTC".

// rawPair is two pion PeerConnections joined by one data channel, with
// received messages handed to channels (as a game loop would take them).
type rawPair struct {
	pcA, pcB *webrtc.PeerConnection
	a, b     *webrtc.DataChannel
	inA, inB chan []byte
}

func newRawPair(tb testing.TB) *rawPair {
	tb.Helper()
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	api := webrtc.NewAPI(webrtc.WithSettingEngine(se))
	r := &rawPair{inA: make(chan []byte, 1<<16), inB: make(chan []byte, 1<<16)}
	var err error
	if r.pcA, err = api.NewPeerConnection(webrtc.Configuration{}); err != nil {
		tb.Fatal(err)
	}
	if r.pcB, err = api.NewPeerConnection(webrtc.Configuration{}); err != nil {
		tb.Fatal(err)
	}
	openB := make(chan *webrtc.DataChannel, 1)
	r.pcB.OnDataChannel(func(dc *webrtc.DataChannel) {
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
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
	r.a.OnMessage(func(m webrtc.DataChannelMessage) {
		select {
		case r.inA <- m.Data:
		default:
		}
	})
	offer, _ := r.pcA.CreateOffer(nil)
	gatherA := webrtc.GatheringCompletePromise(r.pcA)
	if err := r.pcA.SetLocalDescription(offer); err != nil {
		tb.Fatal(err)
	}
	<-gatherA
	if err := r.pcB.SetRemoteDescription(*r.pcA.LocalDescription()); err != nil {
		tb.Fatal(err)
	}
	answer, _ := r.pcB.CreateAnswer(nil)
	gatherB := webrtc.GatheringCompletePromise(r.pcB)
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

// transportPair is a WebRTCHost and one WebRTCPeer.
type transportPair struct {
	host *WebRTCHost
	peer *WebRTCPeer
	stop func()
}

func newTransportPair(tb testing.TB) *transportPair {
	tb.Helper()
	cfg := WebRTCConfig{Loopback: true}
	host, err := NewWebRTCHost(cfg)
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
func recvTimeout(c Conn, buf []byte, d time.Duration) bool {
	var timer *time.Timer
	for {
		if _, _, err := c.Recv(buf); err == nil {
			return true
		} else if !errors.Is(err, ErrWouldBlock) {
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
	p := &benchPairs{raw: newRawPair(b), tr: newTransportPair(b), buf: make([]byte, MaxDatagram), done: make(chan struct{})}
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
			buf := make([]byte, MaxDatagram)
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

// BenchmarkWebRTCRTT: a 32-byte datagram to the far end and back, raw pion
// and transport alternating in blocks of 50; ns/op is per round trip of
// either, raw-µs and transport-µs are each one's mean round trip, and ratio
// is raw/transport (1 = as fast as raw pion, > 1 faster).
func BenchmarkWebRTCRTT(b *testing.B) {
	p := newBenchPairs(b, true)
	defer p.close()
	msg := make([]byte, 32)
	var rawT, trT time.Duration
	var rawN, trN, lost int
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(50, b.N-done)
		start := time.Now()
		for range n / 2 {
			_ = p.raw.a.Send(msg)
			if !p.rawRecv(p.raw.inA, time.Second) {
				lost++
			}
		}
		rawT += time.Since(start)
		rawN += n / 2
		start = time.Now()
		for range n - n/2 {
			_ = p.tr.peer.Send(p.tr.peer.RemoteAddr(), msg)
			if !recvTimeout(p.tr.peer, p.buf, time.Second) {
				lost++
			}
		}
		trT += time.Since(start)
		trN += n - n/2
		done += n
	}
	if rawN > 0 && trN > 0 {
		r, t := rawT.Seconds()/float64(rawN), trT.Seconds()/float64(trN)
		b.ReportMetric(r*1e6, "raw-µs")
		b.ReportMetric(t*1e6, "transport-µs")
		b.ReportMetric(r/t, "ratio")
	}
	b.ReportMetric(float64(lost), "lost")
}

// BenchmarkWebRTCThroughput: one-way datagrams of 100 bytes in windows of
// 256 (send the window, wait for it to arrive), raw pion and transport
// alternating window by window; raw-dg/s and transport-dg/s are delivery
// rates and ratio is transport/raw.
func BenchmarkWebRTCThroughput(b *testing.B) {
	const window = 256
	p := newBenchPairs(b, false)
	defer p.close()
	msg := make([]byte, 100)
	var rawT, trT time.Duration
	var rawN, trN, lost int
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(window, b.N-done)
		start := time.Now()
		for range n {
			_ = p.raw.a.Send(msg)
		}
		for range n {
			if !p.rawRecv(p.raw.inB, time.Second) {
				lost++
				break
			}
		}
		rawT += time.Since(start)
		rawN += n
		start = time.Now()
		for range n {
			_ = p.tr.peer.Send(p.tr.peer.RemoteAddr(), msg)
		}
		for range n {
			if !recvTimeout(p.tr.host, p.buf, time.Second) {
				lost++
				break
			}
		}
		trT += time.Since(start)
		trN += n
		done += 2 * n
	}
	if rawN > 0 && trN > 0 {
		r, t := float64(rawN)/rawT.Seconds(), float64(trN)/trT.Seconds()
		b.ReportMetric(r, "raw-dg/s")
		b.ReportMetric(t, "transport-dg/s")
		b.ReportMetric(t/r, "ratio")
	}
	b.ReportMetric(float64(lost), "lost")
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
		buf := make([]byte, MaxDatagram)
		run(b, func(m []byte) { _ = t.peer.Send(t.peer.RemoteAddr(), m) },
			func() ([]byte, bool) { return buf, recvTimeout(t.host, buf, quiet) })
	})
}
