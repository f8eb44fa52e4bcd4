package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/cli/health"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// consoleFlags are --console and --admin-token (docs/operations.md).
type consoleFlags struct {
	on        bool
	tokenFile string
	token     []byte // --admin-token's, once check read it
}

func (f *consoleFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "console", false, "serve the operator's console at /console on the --http address: rooms, matches and players, live (off by default: it lists room codes, which let anyone join)")
	fs.StringVar(&f.tokenFile, "admin-token", "", "with --console: enable its actions (end a match, remove a player, close a room, drain) for requests with Authorization: Bearer <this file's token, 16 characters or more>")
}

// check checks the flags and reads --admin-token's file (a usage error
// if it cannot be read or holds too short a token).
func (f *consoleFlags) check() error {
	if !f.on {
		if f.tokenFile != "" {
			return usageError{Err: errors.New("--admin-token needs --console")}
		}
		return nil
	}
	if f.tokenFile != "" && f.token == nil {
		t, err := console.LoadToken(f.tokenFile)
		if err != nil {
			return usageError{Err: fmt.Errorf("--admin-token: %w", err)}
		}
		f.token = t
	}
	return nil
}

// consoleAt is the console's URL on the HTTP address addr (an unspecified
// host replaced as wsURL does).
func consoleAt(addr net.Addr) string {
	return "http" + strings.TrimSuffix(strings.TrimPrefix(wsURL(addr), "ws"), roomproto.Path) + console.Path
}

// mount adds the console to mux if --console was given.
func (f *consoleFlags) mount(mux *http.ServeMux, p console.Provider, a console.Actor) error {
	if err := f.check(); err != nil || !f.on {
		return err
	}
	console.New(console.Options{Provider: p, Actor: a, Token: f.token}).Mount(mux)
	return nil
}

// relayConsole is the console's view of a relay: its rooms, those of the
// fleet's other relays from the shared directory, and its actions.
type relayConsole struct {
	rr    *roomRelay
	probe *health.Probe
}

// Snapshot implements console.Provider.
func (c relayConsole) Snapshot(now time.Time) console.Snapshot {
	st, ms := c.rr.rooms.RoomStats(), c.rr.rooms.MatchServers()
	s := console.Snapshot{Source: "relay", Draining: c.rr.rooms.Draining() || c.probe.Draining(), Fleet: c.rr.dir != nil,
		Refusals: map[string]uint64{"join: no room or bad key": st.JoinsFailed, "join: throttled": st.JoinsThrottled,
			"join: timed out": st.PendingDropped, "open: no free slot": ms.Full}}
	local := map[string]bool{}
	for _, r := range c.rr.rooms.Rooms() {
		local[r.Code] = true
		room := console.Room{Code: r.Code, Players: r.Players, MaxPlayers: r.MaxPlayers, Spectators: r.Spectators,
			Since: r.Born.UnixMilli(), Migrations: r.Migrations, Closed: r.Closed, Members: []console.Player{}}
		switch {
		case r.Orphaned:
			room.Hosted = "orphaned: waiting for a claimant"
		case r.Server:
			room.Hosted, room.HostAddr = "match server", r.Host
		default:
			room.Hosted, room.HostAddr = "host", r.Host
		}
		for _, m := range r.Members {
			state := "joining"
			switch {
			case m.Spectator:
				state = "spectating"
			case m.Connected:
				state = "playing"
			}
			room.Members = append(room.Members, console.Player{ID: m.ID, State: state, Since: m.Joined.UnixMilli(), Addr: m.Addr})
		}
		s.Rooms = append(s.Rooms, room)
	}
	if c.rr.dir != nil {
		recs, err := c.rr.dir.List()
		if err != nil {
			s.Refusals["console: directory unreadable"]++
		}
		for _, rec := range recs {
			if local[rec.Code] {
				continue
			}
			s.Rooms = append(s.Rooms, console.Room{Code: rec.Code, Hosted: "relay " + rec.Owner, Remote: true, Members: []console.Player{}})
		}
	}
	return s
}

// EndMatch implements console.Actor.
func (c relayConsole) EndMatch(code, why string) error {
	return relayActionErr(c.rr.rooms.EndRoom(code, why))
}

// RemovePlayer implements console.Actor.
func (c relayConsole) RemovePlayer(code, id, why string) error {
	return relayActionErr(c.rr.rooms.RemovePlayer(code, id, why))
}

// CloseRoom implements console.Actor.
func (c relayConsole) CloseRoom(code string) error {
	return relayActionErr(c.rr.rooms.CloseRoom(code))
}

// Drain implements console.Actor: no new rooms, and /readyz answers 503.
func (c relayConsole) Drain() error {
	c.rr.rooms.Drain()
	c.probe.Drain()
	return nil
}

// relayActionErr maps the relay's "no such room/player" to the console's.
func relayActionErr(err error) error {
	if errors.Is(err, roomproto.ErrNoRoom) || errors.Is(err, roomproto.ErrNoPlayer) {
		return fmt.Errorf("%w: %v (a room of another relay of the fleet is ended at its relay's console)", console.ErrNotFound, err)
	}
	return err
}

// demoConsole is the console of rewind demo: its relay's rooms, the
// demo's own room with what its match server knows of each player, and
// the actions: on the demo's room those of its match (matchConsole), on
// another room the relay's.
type demoConsole struct {
	relay relayConsole
	match *matchConsole // the demo's room, under its code
}

// Snapshot implements console.Provider.
func (c demoConsole) Snapshot(now time.Time) console.Snapshot {
	s := c.relay.Snapshot(now)
	s.Source = "demo"
	ms := c.match.Snapshot(now)
	s.BytesIn, s.BytesOut = ms.BytesIn, ms.BytesOut
	for why, n := range ms.Refusals {
		s.Refusals[why] = n
	}
	for i, r := range s.Rooms {
		if r.Code == c.match.code && len(ms.Rooms) == 1 {
			m := ms.Rooms[0]
			m.Since, m.Migrations, m.Closed = r.Since, r.Migrations, r.Closed || m.Closed
			m.Hosted, m.HostAddr = "here (the demo's match)", ""
			s.Rooms[i] = m
		}
	}
	return s
}

// EndMatch implements console.Actor.
func (c demoConsole) EndMatch(code, why string) error {
	if code == c.match.code {
		return c.match.EndMatch(code, why)
	}
	return c.relay.EndMatch(code, why)
}

// RemovePlayer implements console.Actor: in the demo's room, the match
// server's player id (the console lists its players).
func (c demoConsole) RemovePlayer(code, id, why string) error {
	if code == c.match.code {
		return c.match.RemovePlayer(code, id, why)
	}
	return c.relay.RemovePlayer(code, id, why)
}

// CloseRoom implements console.Actor: the demo's room refuses new joins
// at the relay and new players at its match.
func (c demoConsole) CloseRoom(code string) error {
	if code == c.match.code {
		if err := c.match.CloseRoom(code); err != nil {
			return err
		}
	}
	return c.relay.CloseRoom(code)
}

// Drain implements console.Actor: the relay's drain (no new rooms,
// /readyz 503); the demo's match takes players on.
func (c demoConsole) Drain() error { return c.relay.Drain() }
