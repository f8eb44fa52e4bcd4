package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/rewindnet/rewind/internal/health"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	register("demo", "the rooms relay, a hosted sand room and the browser page that plays it, in one process on one HTTP port (open the printed url=, or join with rewind play --join CODE)", runDemo)
}

func runDemo(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return demo(ctx, args, stdout, stderr)
}

// demo serves the rooms relay (and TURN) on --http and hosts a sand match
// in a room of it, until ctx ends or --duration passes; the page at url=
// plays the match in the browser (demo_page.go; not with --no-page). It
// prints room=, relay= and url= on lines of their own as soon as the
// relay and the room are up, then reads the page's files from the cache
// or, on a first run for these sources, builds them while / says
// "building" with the build's progress; one key=value line of totals at
// the end.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "rewind demo [--http ADDR] [flags]", stderr)
	httpAddr := fs.String("http", "127.0.0.1:8080", "HTTP address of the page (/) and the relay's WebSocket endpoint; 0.0.0.0:8080 lets other machines join")
	var gf gameFlags
	gf.add(fs)
	code := fs.String("room", "", "propose this room code (default: the relay picks one)")
	var pf playerFlags // serve.go
	pf.add(fs, "most players in the match", "players that must have joined before the match's first tick (others may join at any time)")
	duration := fs.Duration("duration", 0, "stop after this long (0: run until interrupted)")
	var o roomRelayOptions
	fs.StringVar(&o.turnAddr, "turn", "", `UDP address of the TURN server (default: the --http host, a free port; "none" turns TURN off)`)
	fs.StringVar(&o.turnIP, "turn-ip", "", "public IP handed out for TURN (default: the --turn IP, or this machine's first non-loopback IPv4)")
	o.turnSecret = os.Getenv("REWIND_TURN_SECRET")
	noPage := fs.Bool("no-page", false, "serve no browser player: / only says how to join from a terminal, and the wasm is not built (without it, the first run builds the page's wasm with go from PATH, from the source tree, into the user's cache)")
	var lf logFlags
	lf.add(fs)
	if err := parseQuiet(fs, "demo", args, stderr); err != nil {
		return err
	}
	if err := gf.check(); err != nil {
		return err
	}
	if gf.name != "sand" {
		return usageError{fmt.Errorf("--game %s: demo plays sand (its page is sand's view); rewind serve --game %s hosts the others", gf.name, gf.name)}
	}
	if err := pf.check(); err != nil {
		return err
	}
	if *duration < 0 {
		return usageError{errors.New("--duration must not be negative")}
	}
	log, err := lf.logger(stderr)
	if err != nil {
		return err
	}
	o.log = log
	var files *pageFiles // demo_page.go: read or built once the room is up
	var goroot string
	if !*noPage {
		if files, goroot, err = preparePage(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *httpAddr, err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	rr, err := newRoomRelay(host, o)
	if err != nil {
		ln.Close()
		return err
	}
	defer rr.close()
	relayURL := wsURL(ln.Addr())
	pageURL := "http" + strings.TrimSuffix(strings.TrimPrefix(relayURL, "ws"), roomproto.Path) + "/"
	page := &demoPage{relay: relayURL, building: files != nil, progress: "starting"}
	g := gf.newGame()
	gw, err := gateway.New(g, gateway.Config[sand.Input]{Log: log.With("part", "json")})
	if err != nil {
		ln.Close()
		return err
	}
	defer gw.Close()
	lockstepURL := strings.TrimSuffix(relayURL, roomproto.Path) + "/lockstep"
	mux := http.NewServeMux()
	rr.mount(mux)
	var probe health.Probe // /healthz, /readyz
	probe.Mount(mux)
	mux.Handle("/lockstep", gw) // the JSON lockstep gateway (docs/gateway.md)
	mux.Handle("/{$}", page)
	hs := netutil.HTTPLimits{}.Server(mux)
	served := make(chan error, 1)
	go func() {
		err := hs.Serve(netutil.HTTPLimits{}.Listener(ln))
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		served <- err
	}()
	defer func() {
		rr.rooms.Close() // hijacked WebSockets are the relay's to close
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		<-served
	}()

	hctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	scfg := pf.config()
	scfg.Schema = gw.Schema()
	room, err := rooms.Host(hctx, g, rooms.HostOptions{
		Relay:  relayURL,
		Code:   *code,
		Server: scfg,
		Extra:  []transport.Conn{gw.Conn()},
		Log:    log.With("game", gf.name, "grid", gf.grid),
	})
	cancel()
	if err != nil {
		return err
	}
	defer room.Close()
	page.set(room.Code(), gf)
	fmt.Fprintf(stderr, "rewind demo: join with  rewind play --headless --join %s --relay %s%s\n", room.Code(), relayURL, gf.playFlags())
	fmt.Fprintf(stdout, "room=%s\n", room.Code())
	fmt.Fprintf(stdout, "relay=%s\n", relayURL)
	fmt.Fprintf(stdout, "url=%s\n", pageURL)
	fmt.Fprintf(stdout, "lockstep=%s\n", lockstepURL)
	if files != nil {
		go func(f *pageFiles) {
			err := f.load(goroot, stderr, page.setProgress)
			if err != nil {
				fmt.Fprintf(stderr, "rewind demo: the browser page: %v\n", err)
				page.setFiles(nil, err)
				return
			}
			f.mount(mux)
			page.setFiles(f, nil)
			fmt.Fprintf(stderr, "rewind demo: the page is ready at %s\n", pageURL)
		}(files)
	}
	log.Info("demo", "room", room.Code(), "url", pageURL, "relay", relayURL, "turn", rr.turnURL(), "http", net.JoinHostPort(host, port))

	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	runErr := make(chan error, 1)
	go func() { runErr <- room.Run(rctx) }()
	select {
	case err = <-runErr:
	case err = <-served:
		served <- err // for the deferred shutdown
		if err == nil {
			err = errors.New("the HTTP server stopped")
		}
		rcancel()
		<-runErr
	}
	s := room.Stats()
	if cerr := room.Close(); err == nil && cerr != nil {
		err = cerr
	}
	keyValues(stdout, "matches", s.Matches, "ticks", s.Total.Tick, "joins", s.Total.Joins, "leaves", s.Total.Leaves,
		"player_ticks", s.Total.PlayerTicks, "late_inputs", s.Total.LateInputs)
	return err
}

// playFlags are the play flags a player needs besides the code, for game
// settings that differ from play's defaults.
func (g *gameFlags) playFlags() string {
	s := ""
	if g.grid != 256 {
		s += fmt.Sprintf(" --grid %d", g.grid)
	}
	if g.tickRate != rewind.DefaultTickRate {
		s += fmt.Sprintf(" --tick-rate %d", g.tickRate)
	}
	return s
}
