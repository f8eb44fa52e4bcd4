package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
)

// serveRooms hosts many matches in rooms of the relay through one relay
// connection (`rewind serve --relay URL --rooms N [--max-matches M]
// [--on-demand]`, or --relay URL,URL,...: the relays of a fleet, tried in
// turn when the relay connection drops): a rooms.Serve match server, its
// matches on one WebRTC port and the host.Multi's workers (like serve
// --rooms on UDP), with --udp also on one UDP port (players pick the room by its code: play
// --connect HOST:PORT --room CODE). It opens --rooms rooms at start (the
// first the --room code, if given) and prints udp=HOST:PORT with --udp,
// then room=CODE once per room, then server_key= with --udp, slots=M with
// --on-demand (the relay opens more rooms here when lobbies ask: rewind
// open), http= with --http, and at the end one key=value line of the
// matches' totals.
func serveRooms[I any](ctx context.Context, g rewind.Game[I], o roomServe, stdout io.Writer, log *slog.Logger) error {
	s, err := startServedRooms(ctx, g, o, log)
	if err != nil {
		return err
	}
	defer s.Close()
	addr, hasUDP := s.UDPAddr()
	if hasUDP {
		fmt.Fprintf(stdout, "udp=%s\n", addr)
	}
	for _, c := range s.Codes() {
		fmt.Fprintf(stdout, "room=%s\n", c)
	}
	if hasUDP {
		printServerKey(stdout, s.Conn()) // serve.go
		logUDPBuffers(log, s.Conn(), o.udpConfig)
	}
	if o.rooms.onDemand {
		fmt.Fprintf(stdout, "slots=%d\n", s.Relay().Slots())
	}
	if o.http != nil {
		registerRoomMetrics(o.reg, servedStats[I]{s})
		o.http.mountConsole(&matchConsole{source: "serve", game: o.game.name, max: o.server.MaxPlayers, hosted: hostedAt("relay room", addr, hasUDP), m: s.Multi}, stdout)
		fmt.Fprintf(stdout, "http=%s\n", o.http.Addr())
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	stopStatus := logStatus(ctx, o.status, func() {
		st, lag := s.Stats(), s.TickLag()
		log.Info("status", "rooms", st.Rooms, "running", st.Running, "players", st.Players, "matches", st.Matches,
			"webrtc_peers", s.Relay().Conn().Peers(), "ticks", st.Total.Tick, "late_inputs", st.Total.LateInputs,
			"tick_lag_p99_ms", ms(lag.Quantile(0.99)), "refusals", st.Total.Refused+st.NoRoom)
	})
	err = s.Run(ctx)
	stopStatus()
	if err == nil {
		// Stopped on purpose (interrupted, --duration): every match
		// ends, its players and spectators getting their last ticks.
		ectx, estop := endContext()
		err = s.End(ectx)
		estop()
	}
	st := s.Stats()
	if cerr := s.Close(); err == nil && cerr != nil { // ends every room at the relay
		err = cerr
	}
	pairs := append([]any{"rooms", len(s.Codes())}, totalPairs(st.Matches, st.Total, st.UDP)...)
	if hasUDP {
		pairs = append(pairs, "udp", addr)
	}
	keyValues(stdout, pairs...)
	return err
}

// startServedRooms starts serveRooms' match server: rooms.Serve with
// the flags' rooms (the first with --room's code), --udp only when set,
// the server token of --server-token, within --relay-timeout; a timeout
// or a refused token says what flag to look at.
func startServedRooms[I any](ctx context.Context, g rewind.Game[I], o roomServe, log *slog.Logger) (*rooms.Served[I], error) {
	var codes []string
	if o.rooms.room != "" {
		codes = []string{o.rooms.room}
	}
	udp := ""
	o.fs.Visit(func(f *flag.Flag) {
		if f.Name == "udp" {
			udp = o.udp
		}
	})
	token, err := loadServerToken(o.rooms.tokenFile) // relay.go
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, o.rooms.timeout)
	s, err := rooms.Serve(hctx, g, rooms.ServeOptions{
		Relay: o.rooms.relay, Relays: o.rooms.more, Reconnect: o.rooms.reconnect,
		Rooms: o.multi.rooms, Codes: codes, MaxMatches: o.multi.maxMatches,
		Workers: o.multi.workers, TickPhases: o.multi.tickPhases, OnDemand: o.rooms.onDemand, UnusedTimeout: unusedTimeout(o.rooms.unused),
		UnusedPlayers: o.rooms.unusedN, PlayersPerAddr: perAddrCap(o.rooms.perAddr), ServerToken: token, Server: o.server, Log: o.game.logger(log),
		UDP: udp, UDPConfig: o.udpConfig,
	})
	cancel()
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("the relay at %s did not host the rooms within %v (--relay-timeout): %w", o.rooms.relay, o.rooms.timeout, err)
	}
	if errors.Is(err, roomproto.ErrUnauthorized) {
		return nil, usageError{Err: fmt.Errorf("%w (give serve --server-token FILE with the relay's token)", err)}
	}
	return s, err
}

// servedStats is a match server's counters as one host's, for
// registerRoomMetrics: per-process totals, never a figure per room.
type servedStats[I any] struct{ s *rooms.Served[I] }

// Stats returns the matches' counters summed.
func (v servedStats[I]) Stats() rewind.HostStats {
	st := v.s.Stats()
	var h rewind.HostStats
	h.Matches, h.Running, h.Total, h.RefusedBy = st.Matches, st.Running > 0, st.Total, st.RefusedBy
	h.Match.Players = st.Players
	h.Peers = v.s.Relay().Conn().Peers()
	return h
}

// perAddrCap is --players-per-addr as rooms.ServeOptions takes it (0:
// no cap, which the option spells negative).
func perAddrCap(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// unusedTimeout is --unused-timeout as rooms.ServeOptions takes it (0:
// never, which the option spells negative).
func unusedTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
