package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/rewindnet/rewind/internal/cli/cliflag"
	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/cli/health"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/relay/turn"
)

func init() {
	registerInterruptible("relay", "rooms relay: room codes, WebRTC signaling and TURN (hosts and players pass its URL to --relay)", serveRelay)
}

// roomRelayOptions configures the rooms relay and its TURN server.
type roomRelayOptions struct {
	turnAddr   string        // UDP address for TURN; "" = the HTTP host, port 0; "none" = no TURN
	turnIP     string        // public IP for TURN ("" = derived)
	turnSecret string        // shared secret ("" = random)
	turnTTL    time.Duration // credentials' life (0 = turn.Config's default, 6 h)
	codeLength int           // room code length (0 = the relay's default, 6)
	log        *slog.Logger  // the relay's room events at debug level (nil: none)
	redisURL   string        // the fleet's shared room directory ("" = in memory)
	redisTTL   time.Duration
	serverTok  []byte // --server-token's secret (nil: any client may register as a match server)
	// hostTimeout is how long a host may leave pings unanswered before
	// the relay drops it (--host-timeout; 0 = relay.RoomConfig's, 3 s).
	hostTimeout time.Duration
}

// roomRelay is the rooms relay plus its TURN server, ready to be mounted at
// roomproto.Path on an HTTP mux (by `rewind relay` and `rewind demo`).
type roomRelay struct {
	rooms *relay.RoomServer
	turn  *turn.Server
	dir   *roomdir.Redis // with --redis, else nil
}

// newRoomRelay starts TURN (unless turned off) and the rooms relay. httpHost
// is the host part of the HTTP listen address, used for TURN's default.
func newRoomRelay(httpHost string, o roomRelayOptions) (*roomRelay, error) {
	rr := &roomRelay{}
	if o.turnIP != "" && net.ParseIP(o.turnIP) == nil {
		return nil, usageError{Err: fmt.Errorf("--turn-ip %q is not an IP address", o.turnIP)}
	}
	if o.turnAddr != "none" {
		addr := o.turnAddr
		if addr == "" {
			addr = net.JoinHostPort(httpHost, "0")
		}
		t, err := turn.Start(turn.Config{Listen: addr, PublicIP: o.turnIP, Secret: []byte(o.turnSecret), CredentialTTL: o.turnTTL})
		if err != nil {
			return nil, err
		}
		rr.turn = t
	}
	cfg := relay.RoomConfig{TURN: rr.turn, CodeLength: o.codeLength, Log: o.log, ServerToken: o.serverTok, HostTimeout: o.hostTimeout}
	if o.redisURL != "" {
		// A relay started beside its Redis waits for it (about 10 s).
		dir, err := roomdir.NewRedis(context.Background(), o.redisURL, roomdir.RedisConfig{TTL: o.redisTTL})
		if err != nil {
			if rr.turn != nil {
				rr.turn.Close()
			}
			return nil, fmt.Errorf("--redis: %w", err)
		}
		rr.dir, cfg.Directory = dir, dir
	}
	rr.rooms = relay.NewRoomServer(cfg)
	return rr, nil
}

// mount adds the relay's WebSocket endpoint to mux.
func (rr *roomRelay) mount(mux *http.ServeMux) { mux.Handle(roomproto.Path, rr.rooms) }

// close stops the relay and TURN.
func (rr *roomRelay) close() {
	rr.rooms.Close()
	if rr.turn != nil {
		rr.turn.Close()
	}
	if rr.dir != nil {
		rr.dir.Close()
	}
}

// turnURL is the TURN URL handed out, or "none".
func (rr *roomRelay) turnURL() string {
	if rr.turn == nil {
		return "none"
	}
	return rr.turn.URL()
}

// wsURL is the ws:// URL of the relay for a listener at addr: an
// unspecified host is replaced by this machine's first non-loopback IPv4
// address (127.0.0.1 if it has none), which is what a friend dials.
func wsURL(addr net.Addr) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = netutil.FirstIPv4().String()
	}
	return "ws://" + net.JoinHostPort(host, port) + roomproto.Path
}

// serveRelay serves the rooms relay and TURN until ctx ends.
func serveRelay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseRelayFlags(args, stderr)
	if err != nil {
		return err
	}
	log, err := c.lf.logger(stderr)
	if err != nil {
		return err
	}
	c.relay.log = log
	ln, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.httpAddr, err)
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	rr, err := newRoomRelay(host, c.relay)
	if err != nil {
		ln.Close()
		return err
	}
	defer rr.close()
	var metrics []any
	if c.metricsAddr != "" {
		ms, err := startRelayMetrics(c.metricsAddr, rr)
		if err != nil {
			ln.Close()
			return err
		}
		defer ms.close()
		metrics = []any{"metrics", ms.Addr()}
	}
	mux := http.NewServeMux()
	rr.mount(mux)
	var probe health.Probe // /healthz, /readyz on the rooms' address
	probe.Mount(mux)
	if err := c.cf.mount(mux, relayConsole{rr, &probe}, relayConsole{rr, &probe}); err != nil {
		ln.Close()
		return err
	}
	hs := netutil.HTTPLimits{}.Server(mux)
	go func() {
		<-ctx.Done()
		probe.Drain()
		rr.rooms.Close() // hijacked WebSockets are the relay's to close
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	fmt.Fprintf(stderr, "rewind relay: players and hosts pass --relay %s\n", wsURL(ln.Addr()))
	if c.relay.serverTok == nil {
		fmt.Fprintln(stderr, "rewind relay: no --server-token: any client may register as an on-demand match server (and be handed lobbies' rooms and their players' signaling)")
	}
	if c.cf.on {
		metrics = append(metrics, "console", consoleAt(ln.Addr()))
	}
	keyValues(stdout, append([]any{"relay", "listening", "url", wsURL(ln.Addr()), "http", net.JoinHostPort(host, port),
		"turn", rr.turnURL(), "version", strconv.Itoa(roomproto.Version)}, metrics...)...)
	if err := hs.Serve(netutil.HTTPLimits{}.Listener(ln)); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// relayConfig is relay's command line, parsed and checked.
type relayConfig struct {
	httpAddr    string
	metricsAddr string
	relay       roomRelayOptions
	lf          logFlags
	cf          consoleFlags
}

// hostTimeoutFlag defines --host-timeout (relay and demo) into o.
func hostTimeoutFlag(fs *flag.FlagSet, o *roomRelayOptions) {
	fs.DurationVar(&o.hostTimeout, "host-timeout", relay.DefaultHostTimeout, "how long a room's host may leave the relay's pings (one a second) unanswered before the relay drops it and its players take the match over, if it migrates; longer keeps a host on a starved machine (a loaded test run), later to notice a host that hung")
}

// checkHostTimeout refuses a negative --host-timeout.
func (o *roomRelayOptions) checkHostTimeout() error {
	if o.hostTimeout < 0 {
		return usageError{Err: fmt.Errorf("--host-timeout %v must not be negative", o.hostTimeout)}
	}
	return nil
}

// parseRelayFlags parses and checks relay's flags.
func parseRelayFlags(args []string, stderr io.Writer) (*relayConfig, error) {
	c := &relayConfig{}
	o := &c.relay
	fs := newFlags("relay", "rewind relay [--http ADDR] [--turn ADDR|none] [--turn-ip IP] [--turn-ttl D] [--metrics ADDR] [--log-level LEVEL] [--redis redis://HOST:PORT/DB [--redis-ttl D]] [--console [--admin-token FILE]]", stderr)
	cliflag.HTTP(fs, &c.httpAddr, "127.0.0.1:8080", "the rooms WebSocket ("+roomproto.Path+"), the probes /healthz and /readyz and, with --console, the console (Prometheus /metrics is on --metrics, a listener of its own: players reach --http)")
	fs.StringVar(&c.metricsAddr, "metrics", "", "a second HTTP listener, a TCP address (empty: none), kept apart from --http (which players reach): Prometheus /metrics (the relay's rooms, connections, joiners, failed and throttled joins) and /debug/pprof/")
	fs.StringVar(&o.turnAddr, "turn", "", `UDP address of the TURN server (default: the --http host, a free port; "none" turns TURN off)`)
	fs.StringVar(&o.turnIP, "turn-ip", "", "public IP handed out for TURN (default: the --turn IP, or this machine's first non-loopback IPv4)")
	fs.DurationVar(&o.turnTTL, "turn-ttl", 6*time.Hour, "how long the TURN credentials handed to room members stay valid for new allocations; hosts and match servers are handed fresh ones at half of it, and an allocation made in time is refreshed past it for as long as its room lives here")
	fs.IntVar(&o.codeLength, "code-length", roomcode.DefaultLen, "length of the room codes the relay draws, 6 to 12 (7 by default: docs/security.md has the arithmetic; each more character makes guessing a code 32 times slower; codes of 6 to 12 are accepted whatever this is)")
	fs.StringVar(&o.redisURL, "redis", "", "share the room directory with the other relays of a fleet through this Redis (redis://HOST:PORT/DB; retried for about 10 s at start): a player joining through any of them reaches a host on any other (default: rooms in this process's memory)")
	fs.DurationVar(&o.redisTTL, "redis-ttl", 15*time.Second, "with --redis: how long a room stays in the directory after this relay last refreshed it (it refreshes every sixth of it), so a relay that dies takes its rooms with it within this, and the others drop the players it brought to their rooms within it")
	hostTimeoutFlag(fs, o)
	serverToken := fs.String("server-token", "", "a file holding the secret (16 characters or more) that match servers (rewind serve --on-demand, --rooms, --max-matches) must prove to register: they give the same file to serve --server-token; the secret never crosses the wire (an HMAC over a nonce the relay draws per connection). Without it, any client may register as a match server and be handed lobbies' rooms")
	o.turnSecret = os.Getenv("REWIND_TURN_SECRET")
	c.lf.add(fs)
	c.cf.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if c.cf.tokenFile != "" && !c.cf.on {
		return nil, usageError{Err: errors.New("--admin-token needs --console")}
	}
	if o.redisTTL < 600*time.Millisecond {
		return nil, usageError{Err: fmt.Errorf("--redis-ttl %v: want 600ms or more", o.redisTTL)}
	}
	if o.turnTTL < time.Minute {
		return nil, usageError{Err: fmt.Errorf("--turn-ttl %v: want 1m or more", o.turnTTL)}
	}
	if err := o.checkHostTimeout(); err != nil {
		return nil, err
	}
	if o.codeLength < 6 || o.codeLength > 12 {
		return nil, usageError{Err: fmt.Errorf("--code-length %d: want 6 to 12", o.codeLength)}
	}
	tok, err := loadServerToken(*serverToken)
	if err != nil {
		return nil, err
	}
	o.serverTok = tok
	return c, nil
}

// startRelayMetrics serves rr's metrics (the relay's rooms and its match
// servers) and /debug/pprof/ on addr.
func startRelayMetrics(addr string, rr *roomRelay) (*httpServer, error) {
	reg := metrics.NewRegistry()
	metrics.RegisterRelay(reg, rr.rooms.RoomStats)
	metrics.RegisterMatchServers(reg, rr.rooms.MatchServers)
	ms, err := startHTTP(addr, reg, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: %w", addr, errors.Unwrap(err))
	}
	return ms, nil
}

// loadServerToken reads --server-token's file (relay and serve): nil for
// no file; a file that cannot be read or holds too short a secret is a
// usage error.
func loadServerToken(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	t, err := console.LoadToken(path)
	if err != nil {
		return nil, usageError{Err: fmt.Errorf("--server-token: %w", err)}
	}
	return t, nil
}
