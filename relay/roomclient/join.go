package roomclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// JoinOptions says how to join a room through a relay.
type JoinOptions struct {
	// URL is the relay's WebSocket URL, e.g. "ws://127.0.0.1:8080/rooms".
	URL string
	// URLs are more relays of the same fleet (relays sharing Redis),
	// tried in turn after URL when a relay cannot be reached or does not
	// answer within TryTimeout (relays.go). A live relay's refusal
	// (roomproto.ErrNoRoom, roomproto.ErrRoomEnded, roomproto.ErrRoomFull...) is final: the fleet's
	// relays share one directory. Default: none.
	URLs []string
	// TryTimeout bounds each try but the last when URLs is set: the
	// relay's connection and its answer to the join (default
	// DefaultTryTimeout). The data channel's opening is bounded by ctx
	// only.
	TryTimeout time.Duration
	// Code is the room's code (case does not matter).
	Code string
	// WebRTC configures the player's transport; the relay's TURN server
	// is added to its ICE servers, and Loopback is turned on when the relay
	// is on a loopback address.
	WebRTC webrtc.Config
	// Spectator joins as a spectator: the relay counts it against the
	// room's spectators (RoomConfig.MaxSpectators), not its players.
	Spectator bool
}

// RoomPlayer is a player in a room: its transport.Conn talks to the host
// (RemoteAddr) over a WebRTC data channel.
type RoomPlayer struct {
	rc      *roomClient
	conn    *webrtc.Peer
	id      string
	code    string
	url     string // the relay that took the join
	signals chan webrtc.Signal
	pump    sync.WaitGroup
	end     roomEnd
	lost    chan struct{} // closed at the relay's host_lost notice
	lostOne sync.Once
}

// JoinRoom joins the room by code and returns once the data channel to the
// host is open (or ctx ends, or the relay refuses: roomproto.ErrNoRoom, roomproto.ErrRoomFull,
// roomproto.ErrRoomBusy, roomproto.ErrRoomEnded wrapped in a *roomproto.Error; or the relay says the
// host of a room hosted for migration is lost first: roomproto.ErrHostGone).
func JoinRoom(ctx context.Context, opts JoinOptions) (*RoomPlayer, error) {
	p := newRoomPlayer(opts.Code)
	r, err := reach(ctx, relayList(opts.URL, opts.URLs), opts.TryTimeout,
		&roomproto.Msg{Type: roomproto.MsgJoin, V: roomproto.V1, Code: p.code, Spectator: opts.Spectator}, roomproto.MsgJoined, p.handle)
	if err != nil {
		return nil, fmt.Errorf("relay: joining %s: %w", p.code, err)
	}
	opts.URL = r.url
	if err := p.start(ctx, r.rc, r.first, r.start, opts); err != nil {
		return nil, err
	}
	return p, nil
}

func newRoomPlayer(code string) *RoomPlayer {
	return &RoomPlayer{code: strings.ToUpper(strings.TrimSpace(code)), signals: make(chan webrtc.Signal, 256),
		lost: make(chan struct{})}
}

// start connects the player to the host after the relay's "joined"
// answer m (to a join or to a claim): it returns once the data channel is
// open.
func (p *RoomPlayer) start(ctx context.Context, rc *roomClient, m roomproto.Msg, start func(), opts JoinOptions) error {
	p.rc = rc
	p.id = m.ID
	p.url = opts.URL
	start() // signals now go to p.signals, in order
	var err error
	p.conn, err = webrtc.Dial(webrtcConfig(opts.WebRTC, opts.URL, m.ICE), p.id,
		func(s webrtc.Signal) { rc.send(&roomproto.Msg{Type: roomproto.MsgSignal, Signal: &s}) })
	if err != nil {
		rc.close()
		return err
	}
	p.pump.Add(1)
	go p.pumpSignals()
	select {
	case <-p.conn.Open():
	case <-rc.done:
		p.Close()
		return fmt.Errorf("relay: joining %s: %w", p.code, p.Err())
	case <-p.lost:
		// The host went while this player joined it (a claimant sent to
		// a host that was leaving): its data channel will never open.
		// The room is orphaned; a claimant claims again.
		p.Close()
		return fmt.Errorf("relay: joining %s: %w: lost while the data channel opened", p.code, roomproto.ErrHostGone)
	case <-ctx.Done():
		p.Close()
		return fmt.Errorf("relay: joining %s: data channel: %w", p.code, ctx.Err())
	}
	if err := p.conn.Wait(ctx); err != nil {
		p.Close()
		return fmt.Errorf("relay: joining %s: %w", p.code, err)
	}
	rc.send(&roomproto.Msg{Type: roomproto.MsgConnected})
	return nil
}

// pumpSignals hands the host's signals to the transport, off the reader
// goroutine.
func (p *RoomPlayer) pumpSignals() {
	defer p.pump.Done()
	for {
		select {
		case s := <-p.signals:
			_ = p.conn.HandleSignal(s) // a bad one fails ICE, which Wait reports
		case <-p.rc.done:
			return
		}
	}
}

// handle runs on the reader goroutine for every message after "joined".
func (p *RoomPlayer) handle(m roomproto.Msg) {
	switch m.Type {
	case roomproto.MsgSignal:
		if m.Signal != nil {
			select {
			case p.signals <- *m.Signal:
			case <-p.rc.done:
			}
		}
	case roomproto.MsgHostLost:
		p.lostOne.Do(func() { close(p.lost) })
	case roomproto.MsgEnded:
		p.end.set(fmt.Errorf("%w: %s", roomproto.ErrRoomEnded, m.Reason))
	case roomproto.MsgError:
		p.end.set(&roomproto.Error{Code: m.Error, Re: m.Re, Reason: m.Reason})
	}
}

// ID is the player's id in the room; the host sees it as
// webrtc.PeerAddr(ID()).
func (p *RoomPlayer) ID() string { return p.id }

// Code is the room's code.
func (p *RoomPlayer) Code() string { return p.code }

// URL is the relay that took the join (JoinOptions.URL, or one of URLs).
func (p *RoomPlayer) URL() string { return p.url }

// Conn is the player's transport, talking to the host.
func (p *RoomPlayer) Conn() *webrtc.Peer { return p.conn }

// HostLost is closed when the relay says the room's host is lost (its
// relay connection closed, or it left the relay's pings unanswered) in a
// room hosted for migration: the player should claim the room
// (ClaimRoom). The relay connection stays open.
func (p *RoomPlayer) HostLost() <-chan struct{} { return p.lost }

// Done is closed when the relay connection ends.
func (p *RoomPlayer) Done() <-chan struct{} { return p.rc.done }

// Err says why the room or the relay connection ended (roomproto.ErrRoomEnded when
// the host ended it or was lost), or nil.
func (p *RoomPlayer) Err() error { return p.end.err(p.rc) }

// Close leaves the room and closes the transport.
func (p *RoomPlayer) Close() error {
	p.rc.close()
	p.pump.Wait()
	if p.conn != nil {
		return p.conn.Close()
	}
	return nil
}
