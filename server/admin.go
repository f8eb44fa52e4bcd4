package server

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/transport"
)

// What an operator sees of a match and does to it (the console of
// rewind serve and rewind demo, docs/operations.md): every peer's figures
// as far as the server knows them, removing a player, closing the match
// to new players, and ending it as the operator (EndWith).

// PeerInfo is what the server knows of one player or spectator. Rollbacks
// happen in clients and the server never sees them; a client whose world
// went wrong asks for page hashes (Repairs), and one too far behind for
// that is sent a whole world (Rebases counts those, and every welcome
// after the first).
type PeerInfo struct {
	// ID is the player's id (a spectator's is -1).
	ID        int
	Spectator bool
	// Name is the name the player gave in chat (empty if none).
	Name string
	// Addr is the peer's transport address.
	Addr transport.Addr
	// Present says the player is in the world (its join event ran);
	// Leaving that it leaves in the next tick.
	Present, Leaving bool
	// Since is when its first hello was admitted.
	Since time.Time
	// RTT is the round trip the server measures from its acknowledgements.
	RTT time.Duration
	// LateInputs counts the ticks that ran without its input.
	LateInputs uint64
	// Repairs counts its requests for page hashes (a desync it repairs);
	// Rebases its welcomes after the first (a whole world sent again).
	Repairs, Rebases uint64
	// BytesIn and BytesOut count the datagram payload bytes from and to it.
	BytesIn, BytesOut uint64
}

// Peers appends to dst what the server knows of each player (by id), then
// of each spectator, and returns it.
func (s *Server[I]) Peers(dst []PeerInfo) []PeerInfo {
	for _, p := range s.players {
		if p != nil && p.addr != "" {
			dst = append(dst, s.peerInfo(p))
		}
	}
	for _, p := range s.specs {
		if p != nil && p.addr != "" {
			dst = append(dst, s.peerInfo(p))
		}
	}
	return dst
}

func (s *Server[I]) peerInfo(p *player) PeerInfo {
	pi := PeerInfo{ID: int(p.id), Spectator: p.spectator, Name: p.chat.name, Addr: p.addr, Present: p.present,
		Leaving: p.leaving, Since: p.adm.since, LateInputs: p.late, Repairs: p.adm.repairs, Rebases: p.adm.rebases,
		BytesIn: p.adm.bytesIn, BytesOut: p.adm.bytesOut}
	if p.spectator {
		pi.ID = -1
	}
	if p.res != nil {
		pi.RTT = p.res.RTT()
	}
	return pi
}

// peerAdmin is a peer's part in the operator's view.
type peerAdmin struct {
	since             time.Time
	repairs, rebases  uint64
	bytesIn, bytesOut uint64
}

// Remove takes player id out of the match for the operator: it is said
// goodbye (codec.ReasonKicked, three times), its leave event runs in the
// next tick and its seat is free; its cookie no longer rejoins. It fails
// with an error wrapping ErrNoPlayer for an id no player holds.
func (s *Server[I]) Remove(id int) error {
	if id < 0 || id >= len(s.players) || s.players[id] == nil || s.players[id].leaving {
		return fmt.Errorf("server: remove player %d: %w", id, ErrNoPlayer)
	}
	p := s.players[id]
	p.cookies, p.digests, p.awaitUntil = nil, nil, time.Time{}
	b := codec.NewBye(p.tag, codec.ReasonKicked)
	for range 3 {
		if err := s.send(p.addr, b.Append(s.wire.sbuf[:0])); err != nil {
			return err
		}
	}
	p.leaving = true
	return nil
}

// SetClosed closes the match to new players and spectators (closed) or
// opens it again: while closed, a hello without a rejoin cookie is
// refused with codec.ReasonFull; who is in the match plays on.
func (s *Server[I]) SetClosed(closed bool) { s.closedJoins = closed }

// Closed reports whether SetClosed closed the match to new players.
func (s *Server[I]) Closed() bool { return s.closedJoins }

// EndWith ends the match at now as End does, the goodbyes giving why:
// codec.ReasonEnded (End's) or codec.ReasonOperator (the operator ended
// it; receivers of before that reason read ReasonEnded).
func (s *Server[I]) EndWith(now time.Time, why codec.Reason) {
	if s.fin.on {
		return
	}
	s.End(now)
	if why == codec.ReasonOperator {
		s.fin.why = why
	}
}
