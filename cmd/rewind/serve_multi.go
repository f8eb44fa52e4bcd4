package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/transport/udp"
)

// multiFlags are serve's flags for many matches on one UDP port (`rewind
// serve --rooms N [--max-matches M]`).
type multiFlags struct {
	rooms, maxMatches, workers int
	tickPhases                 int
}

func (m *multiFlags) add(fs interface {
	IntVar(*int, string, int, string)
}) {
	m.rooms, m.maxMatches = 0, 0
	fs.IntVar(&m.rooms, "rooms", 0, "host this many matches at once on the one UDP port, a room code each (printed as room=CODE lines; players pick one with rewind play --connect HOST:PORT --room CODE; --room proposes the first code); 0: one match, as without it")
	fs.IntVar(&m.maxMatches, "max-matches", 0, "most matches (rooms) open at once (default: --rooms)")
	fs.IntVar(&m.workers, "workers", 0, "goroutines that run the matches' ticks (default: one per core)")
	fs.IntVar(&m.tickPhases, "tick-phases", 0, "at how many instants a tick the matches' ticks fall, so that a worker runs a phase's matches together (default 8, the odd ones only once the even ones hold 8 matches each; -1: each match from its own start)")
}

// on reports whether the flags ask for many matches.
func (m *multiFlags) on() bool { return m.rooms > 0 || m.maxMatches > 0 }

func (m *multiFlags) check() error {
	switch {
	case m.rooms < 0 || m.maxMatches < 0 || m.workers < 0:
		return usageError{Err: fmt.Errorf("--rooms, --max-matches and --workers must not be negative")}
	case m.rooms > 100000 || m.maxMatches > 100000:
		return usageError{Err: fmt.Errorf("--rooms %d, --max-matches %d: want at most 100000", m.rooms, m.maxMatches)}
	case m.maxMatches > 0 && m.rooms > m.maxMatches:
		return usageError{Err: fmt.Errorf("--rooms %d exceeds --max-matches %d", m.rooms, m.maxMatches)}
	}
	return nil
}

// multiServe is what serve's flags say, for many matches on one port.
type multiServe struct {
	multi    multiFlags
	game     gameFlags
	opts     rewind.HostOptions // each match's server, the socket, the log
	udp      string
	room     string // the first room's code (--room), or ""
	reg      *prometheus.Registry
	http     *httpServer
	duration time.Duration
	status   logStatusFunc
}

// logStatusFunc starts serve's status lines (logStatus with --status
// bound).
type logStatusFunc func(ctx context.Context, fn func()) (stop func())

// serveMulti hosts --rooms matches on one UDP socket until ctx ends. It
// prints udp=HOST:PORT, then room=CODE once per match, then http= with
// --http, and at the end one key=value line of totals.
func serveMulti[I any](ctx context.Context, g rewind.Game[I], o multiServe, stdout io.Writer, log *slog.Logger) error {
	rooms := max(o.multi.rooms, 1)
	h, err := host.ListenUDP(g, o.udp, host.Options{
		HostOptions: o.opts,
		MaxMatches:  max(o.multi.maxMatches, rooms),
		Workers:     o.multi.workers,
		TickPhases:  o.multi.tickPhases,
	})
	if err != nil {
		return err
	}
	defer h.Close()
	codes := make([]string, 0, rooms)
	for i := range rooms {
		want := ""
		if i == 0 {
			want = o.room
		}
		code, err := h.Open(want)
		if err != nil {
			if want != "" {
				return usageError{Err: fmt.Errorf("--room %q: a room code is 6 to 12 characters of %s", want, roomcode.Alphabet)}
			}
			return err
		}
		codes = append(codes, code)
	}
	addr, _ := h.UDPAddr()
	fmt.Fprintf(stdout, "udp=%s\n", addr)
	for _, c := range codes {
		fmt.Fprintf(stdout, "room=%s\n", c)
	}
	printServerKey(stdout, h.Conn())
	logUDPBuffers(log, h.Conn(), o.opts.UDP)
	if o.http != nil {
		registerMultiMetrics(o.reg, h)
		o.http.mountConsole(&matchConsole{source: "serve", game: o.game.name, max: o.opts.Server.MaxPlayers, hosted: hostedAt("here", addr, true), m: h}, stdout)
		fmt.Fprintf(stdout, "http=%s\n", o.http.Addr())
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	stopStatus := o.status(ctx, func() {
		s := h.Stats()
		lag := h.TickLag()
		log.Info("status", "rooms", s.Rooms, "running", s.Running, "players", s.Players, "matches", s.Matches,
			"ticks", s.Total.Tick, "late_inputs", s.Total.LateInputs, "tick_lag_p99_ms", ms(lag.Quantile(0.99)),
			"bytes_in", s.UDP.BytesIn, "bytes_out", s.UDP.BytesOut,
			"malformed", s.UDP.Malformed+s.Total.BadDatagrams, "refusals", s.Total.Refused+s.UDP.Refused+s.NoRoom)
	})
	err = h.Run(ctx)
	stopStatus()
	if err == nil {
		// Stopped on purpose (interrupted, --duration): every match
		// ends, its players and spectators getting their last ticks.
		ectx, estop := endContext()
		err = h.End(ectx)
		estop()
	}
	s := h.Stats()
	if cerr := h.Close(); err == nil && cerr != nil {
		err = cerr
	}
	pairs := append([]any{"udp", addr, "rooms", len(codes)}, totalPairs(s.Matches, s.Total, s.UDP)...)
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] == "refusals" {
			pairs[i+1] = s.Total.Refused + s.UDP.Refused + s.NoRoom // with the hellos for no room
		}
	}
	keyValues(stdout, append(pairs, "udp_bytes_in", s.UDP.BytesIn, "udp_bytes_out", s.UDP.BytesOut)...)
	return err
}

// ms is d in milliseconds with two decimals.
func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) }

// registerMultiMetrics exports a host.Multi's counters: the per-process
// totals of metrics.RegisterUDPHost, the rooms, running matches and
// players, and the players of the 5 fullest matches (rank 1..5), never a
// label per room code, so the series stay bounded however many matches
// come and go.
func registerMultiMetrics[I any](reg *prometheus.Registry, h *host.Multi[I]) {
	asHost := func() rewind.HostStats { return metrics.MultiAsHost(h.Stats()) }
	metrics.RegisterUDPHost(reg, asHost, h.Conn().(*udp.Server))
	metrics.RegisterDrops(reg, asHost, h.Stats)
	st := func(f func(s host.Stats) float64) func() float64 {
		return func() float64 { return f(h.Stats()) }
	}
	metrics.Register(reg, map[string]metrics.Func{
		"no_room_refusals_total":    {Help: "Hellos refused because no room had their code.", Fn: st(func(s host.Stats) float64 { return float64(s.NoRoom) })},
		"unrouted_datagrams_total":  {Help: "Datagrams of peers no match knew that were not a hello, dropped.", Fn: st(func(s host.Stats) float64 { return float64(s.Unrouted) })},
		"match_queue_dropped_total": {Help: "Datagrams dropped because their match's queue was full.", Fn: st(func(s host.Stats) float64 { return float64(s.QueueDropped) })},
	}, map[string]metrics.Func{
		"rooms":   {Help: "Rooms open, each with its match.", Fn: st(func(s host.Stats) float64 { return float64(s.Rooms) })},
		"matches": {Help: "Matches running.", Fn: st(func(s host.Stats) float64 { return float64(s.Running) })},
		"players": {Help: "Players in all matches.", Fn: st(func(s host.Stats) float64 { return float64(s.Players) })},
		"tick_lag_p99_seconds": {Help: "The 99th percentile of how late a match's tick started after it was due, since the start.", Fn: func() float64 {
			lag := h.TickLag()
			return lag.Quantile(0.99).Seconds()
		}},
	})
	for rank := 1; rank <= 5; rank++ {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: metrics.Namespace, Name: "match_players_top",
			Help:        "Players in the rank-th fullest running match (0: fewer matches run).",
			ConstLabels: prometheus.Labels{"rank": strconv.Itoa(rank)},
		}, func() float64 {
			top := h.Stats().TopPlayers
			if rank > len(top) {
				return 0
			}
			return float64(top[rank-1])
		}))
	}
}
