package rewind

import (
	"fmt"

	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// PeerInfo is what a match's server knows of one player or spectator: its
// id, address, round trip, late inputs, repairs and bytes (see
// server.PeerInfo; rollbacks happen in clients, which the server never
// sees). Host.Peers and host.Multi's RoomPeers return them for an
// operator's console.
type PeerInfo = server.PeerInfo

// Peers returns what the current match's server knows of each player,
// then of each spectator. It is safe to call while Run runs.
func (h *Host[I]) Peers() []PeerInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	return h.m.Server.Peers(nil)
}

// EndMatch ends the current match for the operator: its players and
// spectators are sent the ticks they lack, then a goodbye with
// ReasonOperator (their sessions fail with an *EndedError whose Operator
// is set), and the next hello starts a new match once that end is done.
// Run must be running for the end to proceed. A match that has not
// started says goodbye at once.
func (h *Host[I]) EndMatch() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("rewind: host %s: %w", h.conn.LocalAddr(), transport.ErrClosed)
	}
	err := h.m.EndMatch(h.m.At) // the host's time: its last Update's
	if ferr := h.flush(); err == nil {
		err = ferr
	}
	return err
}

// Remove takes player id out of the current match: it is said goodbye
// (ReasonKicked), leaves in the next tick and its seat is free; its rejoin
// cookie no longer admits it. It fails with an error wrapping
// server.ErrNoPlayer for an id no player holds.
func (h *Host[I]) Remove(id PlayerID) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("rewind: host %s: %w", h.conn.LocalAddr(), transport.ErrClosed)
	}
	err := h.m.Server.Remove(int(id))
	if ferr := h.flush(); err == nil {
		err = ferr
	}
	return err
}

// SetRoomKey makes key the room's key in the handover data the host's
// matches send their players (ServerConfig.HostMigration), from the next
// ticks on: what a host does after rotating the key at the relay (package
// rooms does it when a player leaves). It is safe to call while Run runs.
func (h *Host[I]) SetRoomKey(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m.SetRoomKey(key)
}

// Departures counts the players who left the host's matches after their
// welcome (said bye, timed out, were removed). It is safe to call while
// Run runs.
func (h *Host[I]) Departures() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m.Departures()
}

// SetClosed closes the host's matches to new players and spectators
// (their hellos are refused as full; who plays, plays on and may rejoin)
// or opens them again.
func (h *Host[I]) SetClosed(closed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m.SetClosed(closed)
}

// Closed reports whether SetClosed closed the host to new players.
func (h *Host[I]) Closed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m.Closed
}
