package main

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/cli/health"
	"github.com/rewindnet/rewind/server"
)

// The console of a match server (rewind serve --http ADDR --console) and
// of the demo's match: each match with the figures its server knows of
// every player (round trip, late inputs, repairs, rebases, bytes; the
// rollbacks happen in the clients, which the server never sees), and the
// operator's actions on it (docs/operations.md).

// adminHost is what the console uses of a rewind.Host (any input type):
// one match at a time.
type adminHost interface {
	Stats() rewind.HostStats
	Peers() []rewind.PeerInfo
	EndMatch() error
	Remove(id rewind.PlayerID) error
	SetClosed(closed bool)
	Closed() bool
}

// adminMulti is what the console uses of a host.Multi (any input type).
type adminMulti interface {
	Rooms() []string
	Stats() host.Stats
	TickLag() host.Lag
	RoomStats(code string) (rewind.HostStats, bool)
	RoomPeers(code string) ([]rewind.PeerInfo, bool)
	RoomClosed(code string) (closed, ok bool)
	EndMatch(code string) error
	RemovePlayer(code string, id rewind.PlayerID) error
	SetRoomClosed(code string, closed bool) error
}

// singleMatch is the code a console gives the one match of a host that
// has no room code (serve --udp).
const singleMatch = "MATCH"

// matchConsole is the console's view of a match server: one host's match
// (h, under code) or a Multi's rooms (m).
type matchConsole struct {
	source string // "serve" or "demo"
	game   string
	max    int   // players a match takes
	hosted where // where the matches run
	probe  *health.Probe
	h      adminHost
	code   string
	m      adminMulti
}

// Snapshot implements console.Provider.
func (c *matchConsole) Snapshot(time.Time) console.Snapshot {
	s := console.Snapshot{Source: c.source, Draining: c.probe != nil && c.probe.Draining(), Refusals: map[string]uint64{}}
	var refused [rewind.ReasonCookie + 1]uint64
	if c.h != nil {
		st := c.h.Stats()
		refused = st.RefusedBy
		s.BytesIn, s.BytesOut = st.Total.BytesIn, st.Total.BytesOut
		s.Rooms = append(s.Rooms, c.room(c.code, st, c.h.Peers(), c.h.Closed()))
	} else {
		st, lag := c.m.Stats(), c.m.TickLag()
		refused = st.RefusedBy
		s.Refusals["no such room"] = st.NoRoom
		s.BytesIn, s.BytesOut = st.Total.BytesIn, st.Total.BytesOut
		if lag.N() > 0 {
			p99 := float64(lag.Quantile(0.99)) / float64(time.Millisecond)
			s.TicksLateP99 = &p99
		}
		for _, code := range c.m.Rooms() {
			rs, ok1 := c.m.RoomStats(code)
			peers, ok2 := c.m.RoomPeers(code)
			closed, ok3 := c.m.RoomClosed(code)
			if ok1 && ok2 && ok3 { // else closed meanwhile
				s.Rooms = append(s.Rooms, c.room(code, rs, peers, closed))
			}
		}
	}
	for r := rewind.ReasonFull; r <= rewind.ReasonCookie; r++ {
		s.Refusals["hello: "+r.String()] = refused[r]
	}
	return s
}

// room is one match as the console shows it.
func (c *matchConsole) room(code string, st rewind.HostStats, peers []rewind.PeerInfo, closed bool) console.Room {
	tick := st.Match.Tick
	r := console.Room{Code: code, Game: c.game, MaxPlayers: c.max, Tick: &tick, Hosted: c.hosted.what, HostAddr: c.hosted.addr, Closed: closed,
		BytesIn: st.Total.BytesIn, BytesOut: st.Total.BytesOut, Members: make([]console.Player, 0, len(peers))}
	spectators := 0
	for _, p := range peers {
		m := peerPlayer(p)
		if p.Spectator {
			spectators++
			m.ID = "s" + strconv.Itoa(spectators)
			r.Spectators++
		} else {
			r.Players++
		}
		r.Members = append(r.Members, m)
	}
	return r
}

// peerPlayer is a match server's figures of one peer, for the console.
func peerPlayer(p rewind.PeerInfo) console.Player {
	ping := float64(p.RTT) / float64(time.Millisecond)
	late, repairs, rebases := p.LateInputs, p.Repairs, p.Rebases
	state := "joining"
	switch {
	case p.Spectator:
		state = "spectating"
	case p.Leaving:
		state = "leaving"
	case p.Present:
		state = "playing"
	}
	m := console.Player{ID: strconv.Itoa(p.ID), Name: p.Name, PingMS: &ping, LateInputs: &late, Desyncs: &repairs, Resyncs: &rebases,
		State: state, Addr: string(p.Addr), BytesIn: p.BytesIn, BytesOut: p.BytesOut}
	if !p.Since.IsZero() {
		m.Since = p.Since.UnixMilli()
	}
	return m
}

// check names the match of code: "" for a Multi's room, or an error
// wrapping console.ErrNotFound.
func (c *matchConsole) check(code string) error {
	if c.h != nil && code != c.code {
		return fmt.Errorf("%w: %s (this server's match is %s)", console.ErrNotFound, code, c.code)
	}
	return nil
}

// EndMatch implements console.Actor: the match ends as the operator's
// (its players are sent every tick, then ReasonOperator's goodbye).
func (c *matchConsole) EndMatch(code, _ string) error {
	if err := c.check(code); err != nil {
		return err
	}
	if c.h != nil {
		return c.h.EndMatch()
	}
	return matchActionErr(c.m.EndMatch(code))
}

// RemovePlayer implements console.Actor: the player is said goodbye
// (kicked) and its seat freed. Spectators are not removed.
func (c *matchConsole) RemovePlayer(code, id, _ string) error {
	if err := c.check(code); err != nil {
		return err
	}
	n, err := strconv.Atoi(id)
	if err != nil || n < 0 || n >= rewind.MaxPlayers {
		return fmt.Errorf("%w: player %q (spectators are not removed)", console.ErrNotFound, id)
	}
	if c.h != nil {
		return matchActionErr(c.h.Remove(rewind.PlayerID(n)))
	}
	return matchActionErr(c.m.RemovePlayer(code, rewind.PlayerID(n)))
}

// CloseRoom implements console.Actor: new players are refused (full).
func (c *matchConsole) CloseRoom(code string) error {
	if err := c.check(code); err != nil {
		return err
	}
	if c.h != nil {
		c.h.SetClosed(true)
		return nil
	}
	return matchActionErr(c.m.SetRoomClosed(code, true))
}

// Drain implements console.Actor: /readyz answers 503 and every match is
// closed to new players; who plays, plays on.
func (c *matchConsole) Drain() error {
	if c.probe != nil {
		c.probe.Drain()
	}
	if c.h != nil {
		c.h.SetClosed(true)
		return nil
	}
	for _, code := range c.m.Rooms() {
		_ = c.m.SetRoomClosed(code, true) // a room closed meanwhile has no players to refuse
	}
	return nil
}

// matchActionErr maps "no such room or player" to the console's.
func matchActionErr(err error) error {
	if errors.Is(err, host.ErrNoRoom) || errors.Is(err, server.ErrNoPlayer) {
		return fmt.Errorf("%w: %v", console.ErrNotFound, err)
	}
	return err
}

// where is where a host's matches run: what, and an address the console
// shows hashed unless revealed.
type where struct{ what, addr string }

// hostedAt says where a host's matches run: what, with the UDP socket's
// address if it has one (ok).
func hostedAt(what string, udp netip.AddrPort, ok bool) where {
	if !ok {
		return where{what: what}
	}
	return where{what + ", udp", udp.String()}
}
