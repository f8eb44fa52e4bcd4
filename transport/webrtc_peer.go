package transport

import (
	"context"
	"fmt"
	"sync"

	"github.com/pion/webrtc/v4"
)

// WebRTCPeer is a player's side of the WebRTC transport: a Conn with one
// peer, the host (RemoteAddr "webrtc:host"). DialWebRTC makes it and sends
// the offer; the host's answer and candidates go to HandleSignal; Wait
// returns once the data channel is open.
type WebRTCPeer struct {
	*dcConn
	api  *webrtcAPI
	pc   *webrtc.PeerConnection
	dc   *webrtc.DataChannel
	send func(Signal)
	sig  signalOrder

	open     chan struct{}
	openOnce sync.Once
	fail     chan struct{}
	failOnce sync.Once
	mu       sync.Mutex
	peer     *dcPeer
}

// DialWebRTC starts a connection to a host: it creates the PeerConnection
// and the data channel and sends the offer, then the local candidates, to
// send (called from pion's goroutines too; it must not block for long). id
// names this peer (LocalAddr is "webrtc:"+id).
func DialWebRTC(cfg WebRTCConfig, id string, send func(Signal)) (*WebRTCPeer, error) {
	cfg = cfg.WithDefaults()
	api, err := newWebRTCAPI(&cfg, false)
	if err != nil {
		return nil, err
	}
	pc, err := api.api.NewPeerConnection(cfg.peerConfiguration())
	if err != nil {
		_ = api.close()
		return nil, fmt.Errorf("transport: new peer connection: %w", err)
	}
	p := &WebRTCPeer{
		dcConn: newDCConn(cfg, PeerAddr(id)),
		api:    api,
		pc:     pc,
		send:   send,
		open:   make(chan struct{}),
		fail:   make(chan struct{}),
	}
	dc, err := pc.CreateDataChannel(cfg.Label, dataChannelInit())
	if err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("transport: create data channel: %w", err)
	}
	p.dc = dc
	dc.OnMessage(func(m webrtc.DataChannelMessage) { p.push(webrtcHostAddr, m.Data) })
	dc.OnOpen(func() {
		peer, ok := p.addPeer(webrtcHostAddr, dc)
		if !ok {
			return
		}
		p.mu.Lock()
		p.peer = peer
		p.mu.Unlock()
		p.openOnce.Do(func() { close(p.open) })
	})
	dc.OnClose(p.lost)
	pc.OnICECandidate(func(c *webrtc.ICECandidate) {
		if c != nil {
			p.sig.sendLocal(p.send, candidateSignal(c))
		}
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		if st == webrtc.PeerConnectionStateFailed || st == webrtc.PeerConnectionStateClosed {
			p.lost()
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err == nil {
		err = pc.SetLocalDescription(offer)
	}
	if err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("transport: offer: %w", err)
	}
	p.sig.described(p.send, Signal{Kind: SignalOffer, SDP: offer.SDP})
	return p, nil
}

// lost ends the peer's session with the host: sends fail from now on.
func (p *WebRTCPeer) lost() {
	p.mu.Lock()
	peer := p.peer
	p.peer = nil
	p.mu.Unlock()
	if peer != nil {
		p.removePeer(webrtcHostAddr, peer)
	}
	p.failOnce.Do(func() { close(p.fail) })
}

// HandleSignal takes the host's answer or one of its candidates.
func (p *WebRTCPeer) HandleSignal(s Signal) error {
	switch s.Kind {
	case SignalAnswer:
		err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: s.SDP})
		if err != nil {
			return fmt.Errorf("transport: answer: %w: %w", ErrBadSignal, err)
		}
		p.sig.remoteReady(p.pc)
		return nil
	case SignalCandidate:
		if err := p.sig.addCandidate(p.pc, candidateInit(s)); err != nil {
			return fmt.Errorf("transport: host candidate: %w", err)
		}
		return nil
	default:
		return fmt.Errorf("transport: peer got a %q signal: %w", s.Kind, ErrBadSignal)
	}
}

// Open returns a channel closed when the data channel opens.
func (p *WebRTCPeer) Open() <-chan struct{} { return p.open }

// Done returns a channel closed when the connection fails or closes.
func (p *WebRTCPeer) Done() <-chan struct{} { return p.fail }

// Wait blocks until the data channel is open (nil), the connection fails
// (ErrNotConnected) or ctx ends.
func (p *WebRTCPeer) Wait(ctx context.Context) error {
	select {
	case <-p.open:
		return nil
	default:
	}
	select {
	case <-p.open:
		return nil
	case <-p.fail:
		return ErrNotConnected
	case <-ctx.Done():
		return fmt.Errorf("transport: waiting for the data channel: %w", ctx.Err())
	}
}

// RemoteAddr implements Conn: the host.
func (p *WebRTCPeer) RemoteAddr() Addr { return webrtcHostAddr }

// Close closes the connection to the host.
func (p *WebRTCPeer) Close() error {
	if !p.closeAll() {
		return ErrClosed
	}
	err := p.pc.Close()
	p.failOnce.Do(func() { close(p.fail) })
	if cerr := p.api.close(); err == nil {
		err = cerr
	}
	return err
}

// PathTypes returns the ICE candidate types ("host", "srflx", "prflx",
// "relay") of the selected path's local and remote ends, or "" before a
// path is selected. "relay" means the path goes through TURN.
func (p *WebRTCPeer) PathTypes() (local, remote string) {
	sctp := p.pc.SCTP()
	if sctp == nil || sctp.Transport() == nil || sctp.Transport().ICETransport() == nil {
		return "", ""
	}
	pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair()
	if err != nil || pair == nil || pair.Local == nil || pair.Remote == nil {
		return "", ""
	}
	return pair.Local.Typ.String(), pair.Remote.Typ.String()
}
