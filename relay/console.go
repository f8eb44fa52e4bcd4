package relay

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// What the operator's console (internal/cli/console, docs/operations.md)
// reads of the hub and does to it: the rooms and their members, ending a
// room, removing a player, closing a room to joins, draining.

// roomAdmin is a room's part in the console.
type roomAdmin struct {
	born       time.Time // made (or adopted) at
	migrations int       // hosts taken over by a claimant
	closed     bool      // the operator closed it to new joins
	rekeys     int       // keys its hosts rotated (rekey.go)
	unserved   int       // new hosts that lost it for serving no one (rekey.go)
}

// RoomInfo is one live room of this relay process, as the console shows it.
type RoomInfo struct {
	Code                string
	Players, Spectators int // connected players (spectators apart), spectators
	Joining             int // players whose data channel is not open yet
	MaxPlayers          int
	// Host is the host's address; Server is set when a match server hosts
	// it (one room among the server's), OnDemand when a lobby opened it.
	Host             string
	Server, OnDemand bool
	// Orphaned is set while a room hosted for migration waits for a claimant.
	Orphaned bool
	Born     time.Time
	// Migrations counts the hosts a claimant took the room over from.
	Migrations int
	// Closed is set once the operator closed it to new joins.
	Closed  bool
	Members []MemberInfo
}

// MemberInfo is one player or spectator of a room.
type MemberInfo struct {
	ID   string
	Addr string // the address its relay connection came from
	// Connected: its data channel to the host is open.
	Connected, Spectator bool
	Joined               time.Time
}

// Rooms returns this process's live rooms, sorted by code, with their members.
func (s *RoomServer) Rooms() []RoomInfo {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]RoomInfo, 0, len(h.rooms))
	for _, r := range h.rooms {
		players, spectators := r.members()
		ri := RoomInfo{Code: r.code, Players: players, Spectators: spectators, Joining: r.joining, MaxPlayers: r.maxPlayers,
			OnDemand: r.onDemand, Orphaned: r.orphaned, Born: r.admin.born, Migrations: r.admin.migrations, Closed: r.admin.closed}
		if r.host != nil {
			ri.Host, ri.Server = r.host.addr, r.host.role == roleServer
		}
		for _, p := range r.players {
			ri.Members = append(ri.Members, MemberInfo{ID: p.pid, Addr: p.addr, Connected: p.connected, Spectator: p.spectator, Joined: p.joinedAt})
		}
		sort.Slice(ri.Members, func(i, j int) bool { return ri.Members[i].Joined.Before(ri.Members[j].Joined) })
		out = append(out, ri)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// EndRoom ends a live room of this process as its host's "end" would:
// the directory remembers it ended, and its host and members are told
// why, after roomproto.EndedByOperator (a match server ends the match
// with the operator's reason). It fails with an error wrapping
// roomproto.ErrNoRoom for a code this process does not hold.
func (s *RoomServer) EndRoom(code, why string) error {
	h := s.hub
	h.mu.Lock()
	defer h.unlock()
	r := h.rooms[code]
	if r == nil {
		return fmt.Errorf("%w: %s", roomproto.ErrNoRoom, code)
	}
	if !strings.HasPrefix(why, roomproto.EndedByOperator) {
		why = strings.TrimSuffix(roomproto.EndedByOperator+": "+why, ": ")
	}
	h.cfg.Log.Info("relay: room ended by the operator", "room", code, "why", why)
	h.endRoom(r, s.cfg.Clock.Now(), why)
	return nil
}

// RemovePlayer takes player id out of a room: it is told the room ended
// for it (why), its relay connection is closed, and the host is told it
// left (its seat is free). It fails with an error wrapping
// roomproto.ErrNoRoom or roomproto.ErrNoPlayer.
func (s *RoomServer) RemovePlayer(code, id, why string) error {
	h := s.hub
	h.mu.Lock()
	defer h.unlock()
	r := h.rooms[code]
	if r == nil {
		return fmt.Errorf("%w: %s", roomproto.ErrNoRoom, code)
	}
	c := r.players[id]
	if c == nil {
		return fmt.Errorf("%w: %s in %s", roomproto.ErrNoPlayer, id, code)
	}
	h.cfg.Log.Info("relay: player removed by the operator", "room", code, "player", id, "why", why)
	h.send(c, &roomproto.Msg{Type: roomproto.MsgEnded, Code: code, Reason: why})
	h.leaveRoom(c, s.cfg.Clock.Now(), why)
	h.kill(c, websocket.StatusNormalClosure, "removed by the operator: "+why)
	return nil
}

// CloseRoom makes a live room refuse new joins (roomproto.ErrRoomFull,
// "closed to new joins"); who is in it stays. It fails with an error
// wrapping roomproto.ErrNoRoom for a code this process does not hold.
func (s *RoomServer) CloseRoom(code string) error {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[code]
	if r == nil {
		return fmt.Errorf("%w: %s", roomproto.ErrNoRoom, code)
	}
	r.admin.closed = true
	return nil
}

// Drain makes the relay refuse new rooms (hosts and on-demand opens fail
// with roomproto.ErrFull, "draining") while its rooms run on and players
// still join them: what a rolling restart waits on.
func (s *RoomServer) Drain() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drained = true
}

// Draining reports whether Drain was called.
func (s *RoomServer) Draining() bool {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.drained
}
