// Package webrtc is the WebRTC data channel transport: a transport.Conn for
// the match's host (Host, many peers on one UDP port) and one for a player
// (Peer, dialing the host). It is apart from package transport so that a
// game that never touches WebRTC never links pion.
//
// Both sides use one data channel per peer, negotiated in-band, with
// Ordered: false and MaxRetransmits: 0, so a datagram arrives once or not at
// all and never waits for an earlier one. Signaling (the offer, the answer
// and the trickled ICE candidates) is not this package's business: both sides
// hand Signals to a callback and take the other side's Signals in
// HandleSignal, so the relay's client can carry them over WebSocket.
//
// Flow of one connection:
//
//	peer (Dial)                       host (Host)
//	creates data channel, offer  -->  HandleSignal(offer): new PeerConnection,
//	                                  answer
//	HandleSignal(answer)         <--  answer
//	candidates                  <-->  candidates (trickled both ways)
//	data channel open                 data channel open: peer joins the Conn
//
// Sends are paced: a datagram goes to the data channel at once while the
// channel's buffered amount (bytes queued or in flight in SCTP) is under
// HighWater; beyond that it waits in a bounded per-peer queue that a sender
// goroutine drains as SCTP acknowledges, and a full queue drops its oldest
// datagram for the new one (pacer.go). An unpaced
// burst overflows the receiver's socket and loses datagrams; see
// docs/benchmarks.md, "Relay and WebRTC".
//
// Files: webrtc.go (shared by every GOOS), pacer.go, host.go, peer.go (also shared),
// api_native.go (the pion SettingEngine and the ICE UDP mux: !js only) and
// api_js.go (the browser, where pion uses the browser's RTCPeerConnection
// and has almost no settings). pion is imported as "pion".
package webrtc

import (
	"fmt"
	"sync"
	"time"

	pion "github.com/pion/webrtc/v4"

	"github.com/rewindnet/rewind/transport"
)

// Signal kinds carried by Signal.Kind.
const (
	// SignalOffer carries a peer's SDP offer to the host.
	SignalOffer = "offer"
	// SignalAnswer carries the host's SDP answer to the peer.
	SignalAnswer = "answer"
	// SignalCandidate carries one trickled ICE candidate, either way.
	SignalCandidate = "candidate"
)

// Signal is one WebRTC signaling message between a peer and a host. Its JSON
// form is what the relay forwards (docs/rooms.md).
type Signal struct {
	// Kind is SignalOffer, SignalAnswer or SignalCandidate.
	Kind string `json:"kind"`
	// SDP is the session description of an offer or answer.
	SDP string `json:"sdp,omitempty"`
	// Candidate is the ICE candidate line ("candidate:..."); for a
	// SignalCandidate only.
	Candidate string `json:"candidate,omitempty"`
	// SDPMid is the candidate's media stream identification tag.
	SDPMid string `json:"sdpMid,omitempty"`
	// SDPMLineIndex is the candidate's media line index.
	SDPMLineIndex uint16 `json:"sdpMLineIndex,omitempty"`
}

// ICEServer is a STUN or TURN server for ICE.
type ICEServer struct {
	// URLs are the server's URLs, e.g. "turn:127.0.0.1:3478?transport=udp".
	URLs []string `json:"urls"`
	// Username is the TURN user name (empty for STUN).
	Username string `json:"username,omitempty"`
	// Credential is the TURN password (empty for STUN).
	Credential string `json:"credential,omitempty"`
}

// Config configures both sides of the WebRTC transport. The zero value
// works; WithDefaults fills in the defaults.
type Config struct {
	// ICEServers are STUN/TURN servers (the relay hands out its TURN server).
	ICEServers []ICEServer
	// RelayOnly forces every path through TURN (ICE transport policy
	// "relay"): for tests and for players who must hide their address.
	RelayOnly bool
	// Loopback makes ICE use loopback addresses only: loopback candidates
	// on, mDNS off, other interfaces ignored. The relay client turns it on
	// by itself when the relay is on a loopback address, so a machine with
	// only "lo" works.
	Loopback bool
	// ListenUDP is the host's address for the ICE UDP mux: every peer
	// connects to this one UDP port (e.g. ":4000" or "127.0.0.1:0"). Empty
	// means "127.0.0.1:0" with Loopback and ":0" otherwise. Native only.
	ListenUDP string
	// RelayAcceptanceMinWait is how long ICE waits before accepting a
	// relay (TURN) candidate pair; pion's own default is 2 s. Default
	// 100 ms, and 0 with RelayOnly.
	RelayAcceptanceMinWait time.Duration
	// DisconnectedTimeout, FailedTimeout and KeepAlive are ICE's timers
	// (pion's defaults 5 s, 25 s, 2 s when zero). Native only.
	DisconnectedTimeout, FailedTimeout, KeepAlive time.Duration
	// HighWater is the number of bytes a data channel may hold queued or
	// in flight before sends wait in the pacing queue. Default 32 KiB: a
	// peer's throughput is then at most about 32 KiB per round trip.
	HighWater int
	// SendQueue is the number of datagrams that may wait per peer for the
	// data channel to drain; when it is full the oldest waiting datagram
	// is dropped for the new one (Stats.SendDropped counts them). The
	// queue grows on demand. Default 64: a few round trips of a match's
	// traffic (about a second of 60 Hz ticks, four round trips of 250 ms),
	// and one world transfer's window of 64 chunks in flight. Older
	// datagrams are stale: the server resends a lost tick with the next
	// ones anyway, and a congested association is better served the
	// newest.
	SendQueue int
	// RecvQueue is the number of received datagrams that may wait for
	// Recv; more are dropped, and so are a peer's beyond its share
	// (RecvQueue / (peers waiting + 1): recvshare.go). Default 16384.
	RecvQueue int
	// RecvRate is how many datagrams a second a Host takes from one
	// peer (burst RecvBurst); beyond, they are dropped on arrival, and a
	// peer that had RecvRate/4 dropped within a second is cut off: its
	// connection closes (recvrate.go). Default DefaultRecvRate (2,000);
	// negative: no limit. Not applied to channels handed over
	// (HostHandover: a tab's Worker reads them).
	RecvRate float64
	// RecvBurst is RecvRate's burst. Default RecvRate/4.
	RecvBurst int
	// Label is the data channel's label. Default "rewind".
	Label string
	// Handover, if set, takes the data channel a Peer creates away from
	// it at once, in the task that created it: a browser transfers an
	// RTCDataChannel to a Worker only then (Chromium: "Transfers must
	// occur on creation, and before any calls to send()"). channel is the
	// browser's RTCDataChannel (a syscall/js Value) under js/wasm and the
	// *pion.DataChannel elsewhere. The Peer then neither sends nor
	// receives on it (its Send fails with ErrNotConnected) and learns the
	// channel's opening and closing from the Handed that Handover
	// returns; whoever took the channel carries the match's datagrams (a
	// browser tab whose match runs in a Worker: view/page). Peer only;
	// the host ignores it (HostHandover is the host's). Default nil: the
	// Peer carries its datagrams.
	Handover func(channel any) (Handed, error)
	// HostHandover is Handover for a Host: it takes the data channel
	// that the player at peer opened away from the Host at once, in the
	// task that announced it (a browser tab that hosts a room, whose
	// match runs in a Worker). The Host then carries none of that peer's
	// datagrams (they never reach Recv); it calls OnPeerOpen and
	// OnPeerClose as the Handed says, and closes the peer's
	// PeerConnection once the channel closes. Default nil: the Host
	// carries its peers' datagrams.
	HostHandover func(peer transport.Addr, channel any) (Handed, error)
}

// Handed is the state of a data channel given away by Config.Handover:
// Open is closed when the channel opens, Closed when it closes or fails
// (before or after opening).
type Handed struct {
	Open, Closed <-chan struct{}
}

// Defaults of Config.
const (
	// DefaultHighWater is Config.HighWater's default, in bytes.
	DefaultHighWater = 32 << 10
	// DefaultSendQueue is Config.SendQueue's default, in datagrams.
	DefaultSendQueue = 64
	// DefaultRecvQueue is Config.RecvQueue's default.
	DefaultRecvQueue = 16384
	// DefaultRelayAcceptanceMinWait is Config.RelayAcceptanceMinWait's
	// default when the ICE policy is not relay-only.
	DefaultRelayAcceptanceMinWait = 100 * time.Millisecond
)

const (
	defaultWebRTCLabel                   = "rewind"
	webrtcLowWaterDivisor                = 2                    // low-water mark = HighWater / 2
	webrtcPacerFallback                  = 5 * time.Millisecond // re-check if no low-water event
	webrtcAddrPrefix                     = "webrtc:"
	webrtcHostAddr        transport.Addr = "webrtc:host"
)

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	if c.HighWater <= 0 {
		c.HighWater = DefaultHighWater
	}
	if c.SendQueue <= 0 {
		c.SendQueue = DefaultSendQueue
	}
	if c.RecvQueue <= 0 {
		c.RecvQueue = DefaultRecvQueue
	}
	if c.RecvRate == 0 {
		c.RecvRate = DefaultRecvRate
	}
	if c.RecvBurst <= 0 {
		c.RecvBurst = max(1, int(c.RecvRate/4))
	}
	if c.Label == "" {
		c.Label = defaultWebRTCLabel
	}
	if c.RelayAcceptanceMinWait == 0 && !c.RelayOnly {
		c.RelayAcceptanceMinWait = DefaultRelayAcceptanceMinWait
	}
	if c.ListenUDP == "" {
		if c.Loopback {
			c.ListenUDP = "127.0.0.1:0"
		} else {
			c.ListenUDP = ":0"
		}
	}
	return c
}

// peerConfiguration is the pion Configuration both sides use.
func (c *Config) peerConfiguration() pion.Configuration {
	var conf pion.Configuration
	for _, s := range c.ICEServers {
		conf.ICEServers = append(conf.ICEServers, pion.ICEServer{
			URLs: s.URLs, Username: s.Username, Credential: s.Credential,
		})
	}
	if c.RelayOnly {
		conf.ICETransportPolicy = pion.ICETransportPolicyRelay
	}
	return conf
}

// dataChannelInit is the unreliable, unordered channel both sides use. It
// is negotiated in-band (the peer creates it, the host accepts it).
func dataChannelInit() *pion.DataChannelInit {
	ordered := false
	var retransmits uint16
	return &pion.DataChannelInit{Ordered: &ordered, MaxRetransmits: &retransmits}
}

func candidateSignal(c *pion.ICECandidate) Signal {
	init := c.ToJSON()
	s := Signal{Kind: SignalCandidate, Candidate: init.Candidate}
	if init.SDPMid != nil {
		s.SDPMid = *init.SDPMid
	}
	if init.SDPMLineIndex != nil {
		s.SDPMLineIndex = *init.SDPMLineIndex
	}
	return s
}

func candidateInit(s Signal) pion.ICECandidateInit {
	mid, idx := s.SDPMid, s.SDPMLineIndex
	return pion.ICECandidateInit{Candidate: s.Candidate, SDPMid: &mid, SDPMLineIndex: &idx}
}

// datagram is one received datagram waiting for Recv.
type datagram struct {
	from transport.Addr
	data []byte
}

// dcConn is the part of a Conn shared by host and peer: the receive queue,
// the ready signal and the peers' paced senders.
type dcConn struct {
	cfg   Config
	local transport.Addr

	ready chan struct{}

	mu     sync.Mutex
	closed bool
	peers  map[transport.Addr]*dcPeer
	// recv is a ring of received datagrams (head, size), grown on demand
	// up to recvLimit.
	recv       []datagram
	head, size int
	recvLimit  int
	dropped    uint64
	tooLarge   uint64
	share      recvShare // each peer's datagrams in recv (recvshare.go)
	// rateLimited and cutOff count datagrams dropped over a peer's
	// RecvRate and peers cut off for it (recvrate.go).
	rateLimited, cutOff uint64

	send sendCounters // of every peer's pacer, past and present
}

func newDCConn(cfg Config, local transport.Addr) *dcConn {
	return &dcConn{
		cfg:       cfg,
		local:     local,
		ready:     make(chan struct{}, 1),
		peers:     make(map[transport.Addr]*dcPeer),
		recv:      make([]datagram, min(64, cfg.RecvQueue)),
		recvLimit: cfg.RecvQueue,
	}
}

// push queues a received datagram, dropping it if it is larger than any
// sender makes, if the queue is full, or if from holds its share of the
// queue (recvshare.go).
func (c *dcConn) push(from transport.Addr, data []byte) {
	c.mu.Lock()
	if len(data) > transport.MaxDatagram {
		c.tooLarge++
		c.mu.Unlock()
		return
	}
	if !c.closed && c.size == len(c.recv) && len(c.recv) < c.recvLimit {
		grown := make([]datagram, min(2*len(c.recv), c.recvLimit))
		for i := range c.size {
			grown[i] = c.recv[(c.head+i)%len(c.recv)]
		}
		c.recv, c.head = grown, 0
	}
	if c.closed || c.size == len(c.recv) || !c.share.admit(from, c.recvLimit) {
		c.dropped++
		c.mu.Unlock()
		return
	}
	c.recv[(c.head+c.size)%len(c.recv)] = datagram{from, data}
	c.size++
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// Recv implements transport.Conn.
func (c *dcConn) Recv(p []byte) (int, transport.Addr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, "", transport.ErrClosed
	}
	if c.size == 0 {
		return 0, "", transport.ErrWouldBlock
	}
	d := c.recv[c.head]
	c.share.taken(d.from)
	c.recv[c.head] = datagram{}
	c.head = (c.head + 1) % len(c.recv)
	c.size--
	if c.size > 0 {
		select {
		case c.ready <- struct{}{}:
		default:
		}
	}
	return copy(p, d.data), d.from, nil
}

// Send implements transport.Conn.
func (c *dcConn) Send(to transport.Addr, p []byte) error {
	if len(p) > transport.MaxDatagram {
		return transport.ErrTooLarge
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return transport.ErrClosed
	}
	peer := c.peers[to]
	c.mu.Unlock()
	if peer == nil {
		return transport.ErrUnknownPeer
	}
	peer.send(p)
	return nil
}

// Stats returns the Conn's counters.
func (c *dcConn) Stats() Stats {
	c.mu.Lock()
	st := Stats{RecvDropped: c.dropped, RecvTooLarge: c.tooLarge, RecvRateLimited: c.rateLimited, PeersCutOff: c.cutOff}
	c.mu.Unlock()
	st.SendQueued = c.send.queued.Load()
	st.SendDropped = c.send.dropped.Load()
	st.SendWaiting = c.send.waiting.Load()
	st.SendWaitingMax = c.send.waitingMax.Load()
	return st
}

// Ready implements transport.Conn.
func (c *dcConn) Ready() <-chan struct{} { return c.ready }

// LocalAddr implements transport.Conn.
func (c *dcConn) LocalAddr() transport.Addr { return c.local }

// addPeer makes an open data channel a peer of the Conn. It reports false
// if the Conn is closed.
func (c *dcConn) addPeer(addr transport.Addr, dc *pion.DataChannel) (*dcPeer, bool) {
	p := newDCPeer(dc, c.cfg, &c.send)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, false
	}
	old := c.peers[addr]
	c.peers[addr] = p
	c.mu.Unlock()
	if old != nil {
		old.stop()
	}
	go p.sendLoop()
	return p, true
}

// removePeer forgets the peer at addr if it is still p (nil: any).
func (c *dcConn) removePeer(addr transport.Addr, p *dcPeer) {
	c.mu.Lock()
	cur := c.peers[addr]
	if cur == nil || (p != nil && cur != p) {
		c.mu.Unlock()
		return
	}
	delete(c.peers, addr)
	c.mu.Unlock()
	cur.stop()
}

// closeAll marks the Conn closed and stops every peer's sender. It reports
// false if the Conn was already closed.
func (c *dcConn) closeAll() bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.closed = true
	peers := c.peers
	c.peers = map[transport.Addr]*dcPeer{}
	c.recv = nil
	c.size = 0
	c.share = recvShare{}
	c.mu.Unlock()
	for _, p := range peers {
		p.stop()
	}
	return true
}

// signalOrder keeps signaling in order on one side of a connection: local
// candidates wait until the offer or answer they belong to has been sent,
// and remote candidates wait until the remote description is set (pion
// emits candidates as soon as gathering starts, which can be before the
// description goes out).
type signalOrder struct {
	mu        sync.Mutex
	descSent  bool
	outbox    []Signal
	remoteSet bool
	inbox     []pion.ICECandidateInit
}

// sendLocal sends a local candidate, or holds it until the description has
// gone.
func (o *signalOrder) sendLocal(send func(Signal), s Signal) {
	o.mu.Lock()
	if !o.descSent {
		o.outbox = append(o.outbox, s)
		o.mu.Unlock()
		return
	}
	o.mu.Unlock()
	send(s)
}

// described sends the offer or answer, then the candidates held back.
func (o *signalOrder) described(send func(Signal), desc Signal) {
	send(desc)
	for {
		o.mu.Lock()
		out := o.outbox
		o.outbox = nil
		if len(out) == 0 {
			o.descSent = true
			o.mu.Unlock()
			return
		}
		o.mu.Unlock()
		for _, s := range out {
			send(s)
		}
	}
}

// addCandidate adds a remote candidate, or holds it until the remote
// description is set.
func (o *signalOrder) addCandidate(pc *pion.PeerConnection, c pion.ICECandidateInit) error {
	o.mu.Lock()
	if !o.remoteSet {
		o.inbox = append(o.inbox, c)
		o.mu.Unlock()
		return nil
	}
	o.mu.Unlock()
	if err := pc.AddICECandidate(c); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignal, err)
	}
	return nil
}

// remoteReady applies the candidates held back until the remote
// description was set.
func (o *signalOrder) remoteReady(pc *pion.PeerConnection) {
	for {
		o.mu.Lock()
		in := o.inbox
		o.inbox = nil
		if len(in) == 0 {
			o.remoteSet = true
			o.mu.Unlock()
			return
		}
		o.mu.Unlock()
		for _, c := range in {
			_ = pc.AddICECandidate(c) // a bad candidate fails ICE, not the caller
		}
	}
}
