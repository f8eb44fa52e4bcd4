package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/rooms"
)

// roomFlags are serve's flags for hosting the match in a room of a rooms
// relay (`rewind serve --relay URL [--room CODE]`).
type roomFlags struct {
	relay     string
	more      []string // --relay's further URLs (a fleet's relays, comma-separated)
	room      string
	timeout   time.Duration
	reconnect time.Duration
	migrate   bool
	onDemand  bool
	unused    time.Duration // --unused-timeout
	unusedN   int           // --unused-players
	perAddr   int           // --players-per-addr
	tokenFile string        // --server-token
}

// split takes --relay's comma-separated list apart: the first URL stays
// relay, the others go to more.
func (r *roomFlags) split() error {
	urls := roomclient.SplitURLs(r.relay)
	if r.relay != "" && len(urls) == 0 {
		return usageError{Err: fmt.Errorf("--relay %q: no URL", r.relay)}
	}
	if len(urls) > 0 {
		r.relay, r.more = urls[0], urls[1:]
	}
	if r.unused < 0 || r.unusedN < 0 || r.perAddr < 0 {
		return usageError{Err: errors.New("--unused-timeout, --unused-players and --players-per-addr must not be negative")}
	}
	if r.reconnect < 0 {
		return usageError{Err: errors.New("--relay-reconnect must not be negative")}
	}
	return nil
}

func (r *roomFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&r.relay, "relay", "", "host the match in a room of the rooms relay at this ws:// URL (as rewind relay prints it); players join with rewind play --join CODE; with --udp as well, the match takes both. A comma-separated list of the URLs of a fleet's relays (relay --redis) makes a match server (as --rooms) that registers at the first and, when its relay connection drops, at the next that answers, claiming its rooms back under the same codes (--relay-reconnect); with --host-migration, a list hosts one room at the first relay that answers and, when that relay connection drops, claims it back through the list's relays in turn (the players play on meanwhile); when this server goes, its players claim the room through their own --relay lists")
	fs.DurationVar(&r.reconnect, "relay-reconnect", time.Minute, "with --relay and --rooms N, --max-matches or --on-demand: when the relay connection drops, keep trying the relays of --relay in turn for this long, then claim the rooms back at the one that answers (0: a dropped connection is final)")
	fs.DurationVar(&r.timeout, "relay-timeout", 15*time.Second, "with --relay: give up when the relay has not hosted the room within this long")
	fs.BoolVar(&r.migrate, "host-migration", false, "with --relay (one URL or a list, not with --rooms, --max-matches or --on-demand): when this server goes (killed, hung, stopped), the match goes on at one of its players (rewind play --join), from its last verified tick; without it, stopping ends the room's match")
	fs.BoolVar(&r.onDemand, "on-demand", false, "with --relay: a match server that also opens rooms when the relay asks (a lobby ran rewind open), up to --max-matches (default 64) at once through one relay connection; a room whose match ended frees its slot")
	fs.DurationVar(&r.unused, "unused-timeout", rooms.DefaultUnusedTimeout, "with --on-demand: a room opened on demand that saw no real play for this long ends, and its slot is free again (0: never): real play is a match of --unused-players or more whose inputs change; a match that never started, or whose players are idle, is not")
	fs.IntVar(&r.unusedN, "unused-players", 1, "with --on-demand: the players a match needs for its play to count as real (--unused-timeout)")
	fs.IntVar(&r.perAddr, "players-per-addr", 8, "with --on-demand: the UDP players one IP address (IPv6: one /64) may hold across all rooms at once; beyond, its hellos are refused full (0: no cap)")
	fs.StringVar(&r.tokenFile, "server-token", "", "with --relay: a file holding the relay's server token (as relay --server-token FILE): serve registers as a match server (one room without --rooms, --max-matches or --on-demand) proving it without sending it; a relay with a token refuses a match server without it (exit status 2); a one-room serve without it hosts its room as a player would")
	fs.StringVar(&r.room, "room", "", "with --relay: propose this room code (6 to 12 characters of 23456789ABCDEFGHJKLMNPQRSTUVWXYZ; default: the relay picks one); with --rooms: the first room's code")
}

// roomServe is what serve's flags say, for the relay branch.
type roomServe struct {
	fs        *flag.FlagSet // to tell whether --udp was given
	rooms     roomFlags
	multi     multiFlags // --rooms, --max-matches, --workers (serveRooms)
	game      gameFlags
	server    rewind.ServerConfig
	udp       string
	udpConfig rewind.UDPConfig     // the UDP socket's key and buffers
	reg       *prometheus.Registry // with http: the registry it serves
	http      *httpServer          // already listening, or nil
	duration  time.Duration
	status    time.Duration
}

// serveRoom hosts matches in a relay room (and on UDP too when --udp was
// given) until ctx ends or --duration passes. It prints room=CODE (and
// udp=, http=) on lines of their own, then one key=value line of totals.
func serveRoom[I any](ctx context.Context, g rewind.Game[I], o roomServe, stdout io.Writer, log *slog.Logger) error {
	udp := ""
	o.fs.Visit(func(f *flag.Flag) {
		if f.Name == "udp" {
			udp = o.udp
		}
	})
	hctx, cancel := context.WithTimeout(ctx, o.rooms.timeout)
	host, err := rooms.Host(hctx, g, rooms.HostOptions{
		Relay:         o.rooms.relay,
		Relays:        o.rooms.more,
		Code:          o.rooms.room,
		Server:        o.server,
		UDP:           udp,
		UDPConfig:     o.udpConfig,
		HostMigration: o.rooms.migrate,
		Log:           o.game.logger(log),
	})
	cancel()
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("the relay at %s did not host the room within %v (--relay-timeout): %w",
			strings.Join(append([]string{o.rooms.relay}, o.rooms.more...), ", "), o.rooms.timeout, err)
	}
	if err != nil {
		return err
	}
	defer host.Close()
	fmt.Fprintf(stdout, "room=%s\n", host.Code())
	if a, ok := host.UDPAddr(); ok {
		fmt.Fprintf(stdout, "udp=%s\n", a)
		printServerKey(stdout, host.Conn()) // serve.go
		logUDPBuffers(log, host.Conn(), o.udpConfig)
	}
	if o.http != nil {
		registerRoomMetrics(o.reg, host)
		a, ok := host.UDPAddr()
		o.http.mountConsole(&matchConsole{source: "serve", game: o.game.name, max: o.server.MaxPlayers, hosted: hostedAt("relay room", a, ok), h: host, code: host.Code()}, stdout)
		fmt.Fprintf(stdout, "http=%s\n", o.http.Addr())
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	stopStatus := logStatus(ctx, o.status, func() {
		s := host.Stats()
		log.Info("status", "room", host.Code(), "match", s.Matches, "running", s.Running, "tick", s.Match.Tick,
			"players", s.Match.Players, "webrtc_peers", s.Peers, "late_inputs", s.Total.LateInputs,
			"malformed", s.UDP.Malformed+s.Total.BadDatagrams, "refusals", s.Total.Refused+s.UDP.Refused)
	})
	err = host.Run(ctx)
	stopStatus()
	if !o.rooms.migrate {
		// Stopped on purpose (interrupted, --duration): the match ends,
		// and the relay says so to whoever comes with the code; the
		// players get their last ticks first.
		ectx, estop := endContext()
		if eerr := host.End(ectx); err == nil {
			err = eerr
		}
		estop()
	}
	s := host.Stats()
	if cerr := host.Close(); err == nil && cerr != nil {
		err = cerr
	}
	pairs := append([]any{"room", host.Code()}, totalPairs(s.Matches, s.Total, s.UDP)...) // serve.go
	if a, ok := host.UDPAddr(); ok {
		pairs = append(pairs, "udp", a)
	}
	keyValues(stdout, pairs...)
	return err
}

// registerRoomMetrics exports a room host's counters (the names of
// metrics.RegisterHost where they mean the same, and webrtc_peers).
func registerRoomMetrics(reg *prometheus.Registry, h interface{ Stats() rewind.HostStats }) {
	st := func(f func(s rewind.HostStats) uint64) func() float64 {
		return func() float64 { return float64(f(h.Stats())) }
	}
	metrics.Register(reg, map[string]metrics.Func{
		"matches_total":             {Help: "Matches started.", Fn: st(func(s rewind.HostStats) uint64 { return s.Matches })},
		"ticks_total":               {Help: "Ticks run, in all matches.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Total.Tick) })},
		"player_ticks_total":        {Help: "Ticks times players present.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.PlayerTicks })},
		"late_inputs_total":         {Help: "Player-ticks whose input had not arrived in time.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.LateInputs })},
		"joins_total":               {Help: "Players joined (join events).", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.Joins })},
		"leaves_total":              {Help: "Players left (leave events: bye or timeout).", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.Leaves })},
		"refusals_total":            {Help: "Hellos refused by the match (full, incompatible, bad cookie).", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.Refused })},
		"bytes_in_total":            {Help: "Datagram payload bytes the match received.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.BytesIn })},
		"bytes_out_total":           {Help: "Datagram payload bytes the match sent.", Fn: st(func(s rewind.HostStats) uint64 { return s.Total.BytesOut })},
		"malformed_datagrams_total": {Help: "Datagrams dropped as malformed: by the UDP framing or by the match.", Fn: st(func(s rewind.HostStats) uint64 { return s.UDP.Malformed + s.Total.BadDatagrams })},
	}, map[string]metrics.Func{
		"players":      {Help: "Players in the current match.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Match.Players) })},
		"matches":      {Help: "Matches running (0 or 1).", Fn: st(func(s rewind.HostStats) uint64 { return metrics.Bool(s.Running) })},
		"tick":         {Help: "The current match's last tick.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Match.Tick) })},
		"webrtc_peers": {Help: "Players whose WebRTC data channel is open.", Fn: st(func(s rewind.HostStats) uint64 { return uint64(s.Peers) })},
	})
}
