package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"

	"github.com/rewindnet/rewind/internal/console"
	"github.com/rewindnet/rewind/internal/health"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// consoleFlags are --console and --admin-token (docs/operations.md).
type consoleFlags struct {
	on        bool
	tokenFile string
}

func (f *consoleFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "console", false, "serve the operator's console at /console on the --http address: rooms, matches and players, live (off by default: it lists room codes, which let anyone join)")
	fs.StringVar(&f.tokenFile, "admin-token", "", "with --console: enable its actions (end a match, remove a player, close a room, drain) for requests with Authorization: Bearer <this file's token, 16 characters or more>")
}

// mount adds the console to mux if --console was given.
func (f *consoleFlags) mount(mux *http.ServeMux, p console.Provider, a console.Actor) error {
	if !f.on {
		if f.tokenFile != "" {
			return usageError{errors.New("--admin-token needs --console")}
		}
		return nil
	}
	var token []byte
	if f.tokenFile != "" {
		t, err := console.LoadToken(f.tokenFile)
		if err != nil {
			return usageError{fmt.Errorf("--admin-token: %w", err)}
		}
		token = t
	}
	console.New(console.Options{Provider: p, Actor: a, Token: token}).Mount(mux)
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
			room.Hosted = "match server " + r.Host
		default:
			room.Hosted = "host " + r.Host
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
