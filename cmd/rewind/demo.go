package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/cli/cliflag"
	"github.com/rewindnet/rewind/internal/cli/demopage"
	"github.com/rewindnet/rewind/internal/cli/health"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	registerInterruptible("demo", "the rooms relay, a hosted room of a registered game (--game, sand by default) and the browser page that plays it, in one process on one HTTP port (open the printed url=, or join with rewind play --join CODE)", demo)
}

// demo serves the rooms relay (and TURN) on --http and hosts a match of
// --game (any registered game) in a room of it, until ctx ends or --duration passes; the page at url=
// plays the match in the browser (internal/cli/demopage; not with --no-page). It
// prints room=, relay= and url= on lines of their own as soon as the
// relay and the room are up, then reads the page's files from the cache
// or, on a first run for these sources, builds them while / says
// "building" with the build's progress; one key=value line of totals at
// the end.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	log, err := c.lf.logger(stderr)
	if err != nil {
		return err
	}
	c.relay.log = log
	var files *demopage.Files // read or built once the room is up
	var goroot string
	if !c.noPage {
		if files, goroot, err = demopage.Prepare(); err != nil {
			return err
		}
	}
	return demoMatch(ctx, c, c.gf.newGame(), files, goroot, log, stdout, stderr)
}

// demoMatch serves the relay, hosts g's match in a room of it and serves
// the page (files, unless nil) until ctx ends, the match ends or
// --duration passes.
func demoMatch[I any](ctx context.Context, c *demoConfig, g rewind.Game[I], files *demopage.Files, goroot string, log *slog.Logger, stdout, stderr io.Writer) error {
	d, err := startDemoHTTP(c, g, log, files != nil)
	if err != nil {
		return err
	}
	defer d.close()

	room, err := d.hostRoom(ctx, c, g, log)
	if err != nil {
		return err
	}
	defer room.Close()
	mc := &matchConsole{source: "demo", game: c.gf.name, max: c.pf.maxPlayers, probe: &d.probe, h: room, code: room.Code()}
	_ = c.cf.mount(d.mux, demoConsole{relayConsole{d.rr, &d.probe}, mc}, demoConsole{relayConsole{d.rr, &d.probe}, mc}) // checked with the flags
	d.announce(room.Code(), c.gf, stdout, stderr)
	if c.cf.on {
		fmt.Fprintf(stdout, "console=%s\n", consoleAt(d.ln.Addr()))
	}
	if files != nil {
		go d.loadPage(files, goroot, stderr)
	}
	log.Info("demo", "room", room.Code(), "url", d.pageURL, "relay", d.relayURL, "turn", d.rr.turnURL(), "http", d.ln.Addr().String())

	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	err = d.run(ctx, room)
	s := room.Stats()
	if cerr := room.Close(); err == nil && cerr != nil {
		err = cerr
	}
	keyValues(stdout, "matches", s.Matches, "ticks", s.Total.Tick, "joins", s.Total.Joins, "leaves", s.Total.Leaves,
		"player_ticks", s.Total.PlayerTicks, "late_inputs", s.Total.LateInputs)
	return err
}

// demoConfig is demo's command line, parsed and checked.
type demoConfig struct {
	httpAddr string
	gf       gameFlags
	code     string
	pf       playerFlags // serve.go
	duration time.Duration
	relay    roomRelayOptions
	noPage   bool
	lf       logFlags
	cf       consoleFlags // console.go
}

// parseDemoFlags parses and checks demo's flags.
func parseDemoFlags(args []string, stderr io.Writer) (*demoConfig, error) {
	c := &demoConfig{}
	fs := newFlags("demo", "rewind demo [--http ADDR] [--console [--admin-token FILE]] [flags]", stderr)
	cliflag.HTTP(fs, &c.httpAddr, "127.0.0.1:8080", "the page (/), the rooms WebSocket ("+roomproto.Path+"), the JSON lockstep gateway (/lockstep, for a game that hides nothing), the probes /healthz and /readyz and, with --console, the console; 0.0.0.0:8080 lets other machines join")
	c.gf.add(fs)
	fs.StringVar(&c.code, "room", "", "propose this room code (default: the relay picks one)")
	c.pf.add(fs, "most players in the match", "players that must have joined before the match's first tick (others may join at any time)")
	fs.DurationVar(&c.duration, "duration", 0, "stop after this long (0: run until interrupted)")
	fs.StringVar(&c.relay.turnAddr, "turn", "", `UDP address of the TURN server (default: the --http host, a free port; "none" turns TURN off)`)
	fs.StringVar(&c.relay.turnIP, "turn-ip", "", "public IP handed out for TURN (default: the --turn IP, or this machine's first non-loopback IPv4)")
	c.relay.turnSecret = os.Getenv("REWIND_TURN_SECRET")
	hostTimeoutFlag(fs, &c.relay)
	fs.BoolVar(&c.noPage, "no-page", false, "serve no browser player: / only says how to join from a terminal, and the wasm is not built (without it, the demo serves the prebuilt page when it is of these sources, else the first run builds the page's wasm with go from PATH, from the source tree, into the user's cache)")
	c.lf.add(fs)
	c.cf.add(fs)
	if err := parseQuiet(fs, "demo", args, stderr); err != nil {
		return nil, err
	}
	if err := c.cf.check(); err != nil {
		return nil, err
	}
	if err := c.gf.check(); err != nil {
		return nil, err
	}
	if err := c.pf.check(); err != nil {
		return nil, err
	}
	if c.duration < 0 {
		return nil, usageError{Err: errors.New("--duration must not be negative")}
	}
	if err := c.relay.checkHostTimeout(); err != nil {
		return nil, err
	}
	return c, nil
}

// demoHTTP is the demo's one HTTP port and what it serves: the rooms
// relay, the health probes, the JSON lockstep gateway and the page.
type demoHTTP[I any] struct {
	ln     net.Listener
	rr     *roomRelay
	gw     *gateway.Gateway[I]
	mux    *http.ServeMux
	hs     *http.Server
	served chan error // the HTTP server's end, once
	page   *demopage.Page
	probe  health.Probe // /healthz, /readyz

	relayURL, pageURL, lockstepURL string
}

// startDemoHTTP listens on --http, starts the rooms relay (and TURN) and
// the lockstep gateway for g, and serves them with the page; close stops
// them all.
func startDemoHTTP[I any](c *demoConfig, g rewind.Game[I], log *slog.Logger, building bool) (*demoHTTP[I], error) {
	ln, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", c.httpAddr, err)
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	rr, err := newRoomRelay(host, c.relay)
	if err != nil {
		ln.Close()
		return nil, err
	}
	d := &demoHTTP[I]{ln: ln, rr: rr, relayURL: wsURL(ln.Addr())}
	d.pageURL = "http" + strings.TrimSuffix(strings.TrimPrefix(d.relayURL, "ws"), roomproto.Path) + "/"
	d.lockstepURL = strings.TrimSuffix(d.relayURL, roomproto.Path) + "/lockstep"
	d.page = demopage.NewPage(d.relayURL, building)
	d.page.SetGames(games.Names())
	d.mux = http.NewServeMux()
	// The JSON lockstep gateway sends whole worlds: not for a game that
	// hides information from its players (docs/scenes.md).
	if !c.gf.entry.Hidden {
		if d.gw, err = gateway.New(g, gateway.Config[I]{Log: log.With("part", "json")}); err != nil {
			ln.Close()
			rr.close()
			return nil, err
		}
		d.mux.Handle("/lockstep", d.gw) // docs/gateway.md
	}
	rr.mount(d.mux)
	d.probe.Mount(d.mux)
	d.mux.Handle("/{$}", d.page)
	d.hs = netutil.HTTPLimits{}.Server(d.mux)
	d.served = make(chan error, 1)
	go func() {
		err := d.hs.Serve(netutil.HTTPLimits{}.Listener(ln))
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		d.served <- err
	}()
	return d, nil
}

// close shuts the HTTP server down (5 s at most), then the gateway and
// the relay.
func (d *demoHTTP[I]) close() {
	d.rr.rooms.Close() // hijacked WebSockets are the relay's to close
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.hs.Shutdown(sctx)
	<-d.served
	if d.gw != nil {
		d.gw.Close()
	}
	d.rr.close()
}

// hostRoom hosts g's match in a room of the demo's relay (15 s to get
// one), with the lockstep gateway (if any) as an extra connection.
func (d *demoHTTP[I]) hostRoom(ctx context.Context, c *demoConfig, g rewind.Game[I], log *slog.Logger) (*rooms.Hosted[I], error) {
	hctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	scfg := c.pf.config()
	var extra []transport.Conn
	if d.gw != nil {
		scfg.Schema = d.gw.Schema()
		extra = append(extra, d.gw.Conn())
	}
	return rooms.Host(hctx, g, rooms.HostOptions{
		Relay:  d.relayURL,
		Code:   c.code,
		Server: scfg,
		Extra:  extra,
		Log:    c.gf.logger(log),
	})
}

// announce hands the room's code to the page and prints how to join:
// a play command on stderr, room=, relay=, url= and (with the gateway)
// lockstep= on stdout.
func (d *demoHTTP[I]) announce(code string, gf gameFlags, stdout, stderr io.Writer) {
	d.page.SetGame(tabGame(gf.name), gf.entry.Help)
	d.page.SetRoom(code, gf.playFlags(), gf.settingsText(), gf.tickRate)
	fmt.Fprintf(stderr, "rewind demo: join with  rewind play --headless --join %s --relay %s%s\n", code, d.relayURL, gf.playFlags())
	fmt.Fprintf(stdout, "room=%s\n", code)
	fmt.Fprintf(stdout, "relay=%s\n", d.relayURL)
	fmt.Fprintf(stdout, "url=%s\n", d.pageURL)
	if d.gw != nil {
		fmt.Fprintf(stdout, "lockstep=%s\n", d.lockstepURL)
	}
}

// loadPage reads or builds the page's files (f.Load) and serves them
// once they are ready, or tells the page why not.
func (d *demoHTTP[I]) loadPage(f *demopage.Files, goroot string, stderr io.Writer) {
	progress, stop := everyTen(stderr, d.page.SetProgress)
	err := f.Load(goroot, stderr, progress)
	stop()
	if err != nil {
		fmt.Fprintf(stderr, "rewind demo: the browser page: %v\n", err)
		d.page.SetFiles(nil, err)
		return
	}
	f.Mount(d.mux)
	d.page.SetFiles(f, nil)
	fmt.Fprintf(stderr, "rewind demo: the page is ready at %s\n", d.pageURL)
}

// everyTen wraps the page build's progress function set: the last step is
// also printed on stderr every 10 s while the build runs (a first run's
// terminal is never silent for longer), until stop.
func everyTen(stderr io.Writer, set func(string)) (progress func(string), stop func()) {
	var mu sync.Mutex
	last := "starting"
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				fmt.Fprintf(stderr, "rewind demo: building the page: %s\n", last)
				mu.Unlock()
			}
		}
	}()
	return func(s string) {
		mu.Lock()
		last = s
		mu.Unlock()
		set(s)
	}, sync.OnceFunc(func() { close(done) })
}

// run runs room until ctx ends, the match ends or the HTTP server stops
// (an error, nil or not, then left in d.served for close).
func (d *demoHTTP[I]) run(ctx context.Context, room *rooms.Hosted[I]) error {
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	runErr := make(chan error, 1)
	go func() { runErr <- room.Run(rctx) }()
	select {
	case err := <-runErr:
		return err
	case err := <-d.served:
		d.served <- err // for close's shutdown
		if err == nil {
			err = errors.New("the HTTP server stopped")
		}
		rcancel()
		<-runErr
		return err
	}
}

// playFlags are the play flags a player needs besides the code, for game
// settings that differ from play's defaults.
func (g *gameFlags) playFlags() string {
	s := ""
	if g.name != defaultGame {
		s += " --game " + tabGame(g.name) // a module's players fetch it: --game module
	}
	for _, st := range g.entry.Settings {
		if v := g.values[st.Name]; v != st.Default {
			s += fmt.Sprintf(" --%s %d", st.Name, v)
		}
	}
	if g.tickRate != rewind.DefaultTickRate {
		s += fmt.Sprintf(" --tick-rate %d", g.tickRate)
	}
	return s
}
