package webrtc

import (
	"context"
	"fmt"
	"sync"

	pion "github.com/pion/webrtc/v4"

	"github.com/rewindnet/rewind/transport"
)

// Peer is a player's side of the WebRTC transport: a transport.Conn with one
// peer, the host (RemoteAddr "webrtc:host"). Dial makes it and sends
// the offer; the host's answer and candidates go to HandleSignal; Wait
// returns once the data channel is open.
type Peer struct {
	*dcConn
	api  *pionAPI
	pc   *pion.PeerConnection
	dc   *pion.DataChannel
	send func(Signal)
	sig  signalOrder

	open     chan struct{}
	openOnce sync.Once
	fail     chan struct{}
	failOnce sync.Once
	mu       sync.Mutex
	peer     *dcPeer
}

// Dial starts a connection to a host: it creates the PeerConnection
// and the data channel and sends the offer, then the local candidates, to
// send (called from pion's goroutines too; it must not block for long). id
// names this peer (LocalAddr is "webrtc:"+id).
func Dial(cfg Config, id string, send func(Signal)) (*Peer, error) {
	cfg = cfg.WithDefaults()
	api, err := newPionAPI(&cfg, false)
	if err != nil {
		return nil, err
	}
	pc, err := api.api.NewPeerConnection(cfg.peerConfiguration())
	if err != nil {
		_ = api.close()
		return nil, fmt.Errorf("webrtc: new peer connection: %w", err)
	}
	p := &Peer{
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
		return nil, fmt.Errorf("webrtc: create data channel: %w", err)
	}
	p.dc = dc
	if cfg.Handover != nil {
		h, err := cfg.Handover(channelValue(dc))
		if err != nil {
			_ = p.Close()
			return nil, fmt.Errorf("webrtc: handing the data channel over: %w", err)
		}
		go p.watchHanded(h)
	} else {
		dc.OnMessage(func(m pion.DataChannelMessage) { p.push(webrtcHostAddr, m.Data) })
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
	}
	pc.OnICECandidate(func(c *pion.ICECandidate) {
		if c != nil {
			p.sig.sendLocal(p.send, candidateSignal(c))
		}
	})
	pc.OnConnectionStateChange(func(st pion.PeerConnectionState) {
		if st == pion.PeerConnectionStateFailed || st == pion.PeerConnectionStateClosed {
			p.lost()
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err == nil {
		err = pc.SetLocalDescription(offer)
	}
	if err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("webrtc: offer: %w", err)
	}
	p.sig.described(p.send, Signal{Kind: SignalOffer, SDP: offer.SDP})
	return p, nil
}

// watchHanded follows a data channel given away (Config.Handover): its
// opening opens the Peer, its closing fails it.
func (p *Peer) watchHanded(h Handed) {
	select {
	case <-h.Open:
		p.openOnce.Do(func() { close(p.open) })
	case <-h.Closed:
		p.lost()
		return
	case <-p.fail:
		return
	}
	select {
	case <-h.Closed:
		p.lost()
	case <-p.fail:
	}
}

// lost ends the peer's session with the host: sends fail from now on.
func (p *Peer) lost() {
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
func (p *Peer) HandleSignal(s Signal) error {
	switch s.Kind {
	case SignalAnswer:
		err := p.pc.SetRemoteDescription(pion.SessionDescription{Type: pion.SDPTypeAnswer, SDP: s.SDP})
		if err != nil {
			return fmt.Errorf("webrtc: answer: %w: %w", ErrBadSignal, err)
		}
		p.sig.remoteReady(p.pc)
		return nil
	case SignalCandidate:
		if err := p.sig.addCandidate(p.pc, candidateInit(s)); err != nil {
			return fmt.Errorf("webrtc: host candidate: %w", err)
		}
		return nil
	default:
		return fmt.Errorf("webrtc: peer got a %q signal: %w", s.Kind, ErrBadSignal)
	}
}

// Open returns a channel closed when the data channel opens.
func (p *Peer) Open() <-chan struct{} { return p.open }

// Done returns a channel closed when the connection fails or closes.
func (p *Peer) Done() <-chan struct{} { return p.fail }

// Wait blocks until the data channel is open (nil), the connection fails
// (ErrNotConnected) or ctx ends.
func (p *Peer) Wait(ctx context.Context) error {
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
		return fmt.Errorf("webrtc: waiting for the data channel: %w", ctx.Err())
	}
}

// RemoteAddr implements transport.Conn: the host.
func (p *Peer) RemoteAddr() transport.Addr { return webrtcHostAddr }

// Close closes the connection to the host.
func (p *Peer) Close() error {
	if !p.closeAll() {
		return transport.ErrClosed
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
func (p *Peer) PathTypes() (local, remote string) {
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
