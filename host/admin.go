package host

import (
	"fmt"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
)

// What an operator sees of a Multi's rooms and does to them (the console
// of rewind serve, docs/operations.md). Each action locks the room as a
// worker's update does; its goodbyes leave at once.

// room returns the open room with the code, or an error wrapping ErrNoRoom.
func (h *Multi[I]) room(code string) (*roomMatch[I], error) {
	code, _ = normalRoom(code)
	h.mu.Lock()
	r := h.rooms[code]
	h.mu.Unlock()
	if r == nil || r.closed.Load() {
		return nil, fmt.Errorf("rewind: room %q: %w", code, ErrNoRoom)
	}
	return r, nil
}

// RoomPeers returns what the match of the room with the code knows of
// each player, then of each spectator (rewind.Host.Peers), and false if
// no room has the code.
func (h *Multi[I]) RoomPeers(code string) ([]rewind.PeerInfo, bool) {
	r, err := h.room(code)
	if err != nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m.Server.Peers(nil), true
}

// RoomClosed reports whether the room with the code is closed to new
// players (SetRoomClosed), and false for its second result if no room
// has the code.
func (h *Multi[I]) RoomClosed(code string) (closed, ok bool) {
	r, err := h.room(code)
	if err != nil {
		return false, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m.Closed, true
}

// EndMatch ends the running match of the room for the operator, as
// rewind.Host.EndMatch does: its peers get the ticks they lack, then a
// goodbye with codec.ReasonOperator; the room stays open for the next
// match (unless Options.FreeEnded closes it). It fails with an error
// wrapping ErrNoRoom.
func (h *Multi[I]) EndMatch(code string) error {
	r, err := h.room(code)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m.EndMatch(h.clock.Now())
}

// RemovePlayer takes player id out of the room's match, as
// rewind.Host.Remove does. It fails with an error wrapping ErrNoRoom, or
// server.ErrNoPlayer.
func (h *Multi[I]) RemovePlayer(code string, id rewind.PlayerID) error {
	r, err := h.room(code)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m.Server.Remove(int(id))
}

// SetRoomClosed closes the room's matches to new players and spectators
// (rewind.Host.SetClosed) or opens them again. It fails with an error
// wrapping ErrNoRoom.
func (h *Multi[I]) SetRoomClosed(code string, closed bool) error {
	r, err := h.room(code)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m.SetClosed(closed)
	return nil
}

// EndRoom says goodbye to the players of the room's match with why
// (codec.ReasonEnded: the match ended on purpose, e.g. at its relay;
// codec.ReasonOperator: its operator ended it) and closes the room, as
// CloseRoom does with codec.ReasonShutdown. It fails with an error
// wrapping ErrNoRoom.
func (h *Multi[I]) EndRoom(code string, why codec.Reason) error {
	r, err := h.room(code)
	if err != nil {
		return err
	}
	h.closeRoom(r, why)
	return nil
}
