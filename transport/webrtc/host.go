package webrtc

import (
	"fmt"
	"net"
	"sync"
	"time"

	pion "github.com/pion/webrtc/v4"

	"github.com/rewindnet/rewind/transport"
)

// Host is the match host's side of the WebRTC transport: a transport.Conn that
// accepts many peers, each over its own PeerConnection, all of them on one
// UDP port through the ICE UDP mux (natively; in a browser the browser picks
// its ports). Peers are added by feeding their signaling to HandleSignal;
// a peer's transport.Addr is "webrtc:" followed by the id it was given there.
type Host struct {
	*dcConn
	api *pionAPI

	// OnPeerOpen, if set before the first HandleSignal, is called when a
	// peer's data channel opens; OnPeerClose when it closes or fails.
	OnPeerOpen, OnPeerClose func(transport.Addr)

	mu      sync.Mutex
	ice     []ICEServer // set by SetICEServers: for peers added after
	iceSet  bool
	conns   map[string]*hostPeer
	closing sync.WaitGroup // PeerConnections closing in the background
	shut    bool           // Close is waiting on closing: no more Adds
}

// hostPeer is one peer's PeerConnection while it connects and after.
type hostPeer struct {
	id    string
	pc    *pion.PeerConnection
	reply func(Signal)

	sig signalOrder

	mu   sync.Mutex
	peer *dcPeer
}

// NewHost opens the host's UDP mux on cfg.ListenUDP and returns the
// host's transport.Conn.
func NewHost(cfg Config) (*Host, error) {
	cfg = cfg.WithDefaults()
	api, err := newPionAPI(&cfg, true)
	if err != nil {
		return nil, err
	}
	return &Host{
		dcConn: newDCConn(cfg, webrtcHostAddr),
		api:    api,
		conns:  make(map[string]*hostPeer),
	}, nil
}

// UDPAddr is the address of the host's one UDP port (nil in a browser).
func (h *Host) UDPAddr() net.Addr { return h.api.udpAddr() }

// SetICEServers replaces the STUN/TURN servers of the peers that connect
// from now on (Config.ICEServers): a host whose relay hands it fresh TURN
// credentials, or that registered its room at another relay, gives them
// to its next peers. Peers already connected keep theirs.
func (h *Host) SetICEServers(servers []ICEServer) {
	h.mu.Lock()
	h.ice, h.iceSet = append([]ICEServer(nil), servers...), true
	h.mu.Unlock()
}

// RemoteAddr implements transport.Conn: a host has many peers, so it is "".
func (h *Host) RemoteAddr() transport.Addr { return "" }

// PeerAddr is the transport.Addr under which the peer with the given id appears.
func PeerAddr(id string) transport.Addr { return transport.Addr(webrtcAddrPrefix + id) }

// HandleSignal takes one signaling message from the peer with the given id.
// An offer starts a new PeerConnection for that id (closing an older one);
// candidates are added to it. reply sends the host's answer and candidates
// back to that peer; it is called from pion's goroutines, and must not
// block for long.
func (h *Host) HandleSignal(id string, s Signal, reply func(Signal)) error {
	switch s.Kind {
	case SignalOffer:
		return h.accept(id, s.SDP, reply)
	case SignalCandidate:
		h.mu.Lock()
		hp := h.conns[id]
		h.mu.Unlock()
		if hp == nil {
			return fmt.Errorf("webrtc: candidate from peer %q: %w", id, transport.ErrUnknownPeer)
		}
		if err := hp.sig.addCandidate(hp.pc, candidateInit(s)); err != nil {
			return fmt.Errorf("webrtc: candidate from %q: %w", id, err)
		}
		return nil
	default:
		return fmt.Errorf("webrtc: host got a %q signal from peer %q: %w", s.Kind, id, ErrBadSignal)
	}
}

func (h *Host) accept(id, sdp string, reply func(Signal)) error {
	h.mu.Lock()
	if h.closed() {
		h.mu.Unlock()
		return transport.ErrClosed
	}
	old := h.conns[id]
	delete(h.conns, id)
	h.mu.Unlock()
	if old != nil {
		h.drop(old)
	}

	h.mu.Lock()
	cfg := h.cfg
	if h.iceSet {
		cfg.ICEServers = h.ice
	}
	h.mu.Unlock()
	pcfg := cfg.peerConfiguration()
	pc, err := h.api.api.NewPeerConnection(pcfg)
	if err != nil {
		return fmt.Errorf("webrtc: new peer connection for %q: %w", id, err)
	}
	hp := &hostPeer{id: id, pc: pc, reply: reply}
	addr := PeerAddr(id)
	pc.OnICECandidate(func(c *pion.ICECandidate) {
		if c != nil {
			hp.sig.sendLocal(hp.reply, candidateSignal(c))
		}
	})
	pc.OnDataChannel(func(dc *pion.DataChannel) { h.onDataChannel(hp, addr, dc) })
	pc.OnConnectionStateChange(func(st pion.PeerConnectionState) {
		if st == pion.PeerConnectionStateFailed || st == pion.PeerConnectionStateClosed {
			h.lost(hp)
		}
	})

	h.mu.Lock()
	if h.closed() {
		h.mu.Unlock()
		_ = pc.Close()
		return transport.ErrClosed
	}
	h.conns[id] = hp
	h.mu.Unlock()

	if err := pc.SetRemoteDescription(pion.SessionDescription{Type: pion.SDPTypeOffer, SDP: sdp}); err != nil {
		h.RemovePeer(id)
		return fmt.Errorf("webrtc: offer from %q: %w: %w", id, ErrBadSignal, err)
	}
	answer, err := pc.CreateAnswer(nil)
	if err == nil {
		err = pc.SetLocalDescription(answer)
	}
	if err != nil {
		h.RemovePeer(id)
		return fmt.Errorf("webrtc: answer for %q: %w", id, err)
	}
	hp.sig.remoteReady(pc)
	hp.sig.described(reply, Signal{Kind: SignalAnswer, SDP: answer.SDP})
	return nil
}

// onDataChannel wires the data channel a peer opened: its first message
// or its open event, whichever comes first, makes the peer; its messages
// are the peer's datagrams; its close loses the peer.
func (h *Host) onDataChannel(hp *hostPeer, addr transport.Addr, dc *pion.DataChannel) {
	if h.cfg.HostHandover != nil {
		handed, err := h.cfg.HostHandover(addr, channelValue(dc))
		if err != nil {
			h.lost(hp)
			return
		}
		go h.watchHanded(hp, addr, handed)
		return
	}
	// pion runs OnOpen on a goroutine of its own, so a datagram can
	// arrive first: whichever comes first makes the peer.
	var once sync.Once
	open := func() {
		once.Do(func() {
			p, ok := h.addPeer(addr, dc)
			if !ok {
				return
			}
			hp.mu.Lock()
			hp.peer = p
			hp.mu.Unlock()
			if h.OnPeerOpen != nil {
				h.OnPeerOpen(addr)
			}
		})
	}
	gate := &recvGate{} // recvrate.go
	dc.OnMessage(func(m pion.DataChannelMessage) {
		open()
		if h.gated(gate, time.Now(), func() { h.RemovePeer(hp.id) }) {
			h.push(addr, m.Data)
		}
	})
	dc.OnOpen(open)
	dc.OnClose(func() { h.lost(hp) })
}

// watchHanded follows the data channel of hp given away
// (Config.HostHandover): its opening and closing are the peer's.
func (h *Host) watchHanded(hp *hostPeer, addr transport.Addr, handed Handed) {
	select {
	case <-handed.Open:
		if h.OnPeerOpen != nil {
			h.OnPeerOpen(addr)
		}
	case <-handed.Closed:
		h.lost(hp)
		return
	}
	<-handed.Closed
	h.lost(hp)
	if h.OnPeerClose != nil {
		h.OnPeerClose(addr)
	}
}

func (h *Host) closed() bool {
	h.dcConn.mu.Lock()
	defer h.dcConn.mu.Unlock()
	return h.dcConn.closed
}

// lost handles a peer whose channel closed or whose connection failed.
func (h *Host) lost(hp *hostPeer) {
	h.mu.Lock()
	if h.conns[hp.id] == hp {
		delete(h.conns, hp.id)
	}
	h.mu.Unlock()
	h.drop(hp)
}

// drop removes hp's peer from the Conn and closes its PeerConnection in the
// background (pion must not be closed from inside its own callbacks).
func (h *Host) drop(hp *hostPeer) {
	hp.mu.Lock()
	p := hp.peer
	hp.peer = nil
	hp.mu.Unlock()
	if p != nil {
		h.removePeer(PeerAddr(hp.id), p)
		if h.OnPeerClose != nil {
			h.OnPeerClose(PeerAddr(hp.id))
		}
	}
	h.mu.Lock()
	shut := h.shut
	if !shut {
		h.closing.Add(1)
	}
	h.mu.Unlock()
	go func() {
		if !shut {
			defer h.closing.Done()
		}
		_ = hp.pc.Close()
	}()
}

// RemovePeer closes the connection of the peer with the given id, if any.
func (h *Host) RemovePeer(id string) {
	h.mu.Lock()
	hp := h.conns[id]
	delete(h.conns, id)
	h.mu.Unlock()
	if hp != nil {
		h.drop(hp)
	}
}

// Peers returns the number of peers whose data channel is open.
func (h *Host) Peers() int {
	h.dcConn.mu.Lock()
	defer h.dcConn.mu.Unlock()
	return len(h.dcConn.peers)
}

// Close closes every peer's connection and the UDP mux.
func (h *Host) Close() error {
	if !h.closeAll() {
		return transport.ErrClosed
	}
	h.mu.Lock()
	conns := h.conns
	h.conns = map[string]*hostPeer{}
	h.mu.Unlock()
	for _, hp := range conns {
		h.drop(hp)
	}
	h.mu.Lock()
	h.shut = true
	h.mu.Unlock()
	h.closing.Wait()
	return h.api.close()
}
