package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/rewindnet/rewind/internal/cli/cliflag"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

func init() {
	registerInterruptible("serve", "host a match over UDP (players join with rewind play --connect) and/or in a relay room (--relay; players join by code)", serve)
}

// playerFlags are the flags serve and demo share that say how many players
// a match takes and when one is dropped.
type playerFlags struct {
	maxPlayers, players int
	perIP               int
	timeout             time.Duration
}

// add declares --max-players, --players and --player-timeout on fs, with
// the usage lines of the first two.
func (p *playerFlags) add(fs *flag.FlagSet, maxPlayersUsage, playersUsage string) {
	fs.IntVar(&p.maxPlayers, "max-players", 16, maxPlayersUsage)
	fs.IntVar(&p.players, "players", 1, playersUsage)
	fs.DurationVar(&p.timeout, "player-timeout", 5*time.Second, "drop a player not heard from for this long")
	fs.IntVar(&p.perIP, "max-players-per-ip", 0, "most players of one IP address in a match over UDP (0: no cap; players behind one NAT share an address)")
}

func (p *playerFlags) check() error {
	switch {
	case p.maxPlayers < 1 || p.maxPlayers > rewind.MaxPlayers:
		return usageError{Err: fmt.Errorf("--max-players %d: want 1..%d", p.maxPlayers, rewind.MaxPlayers)}
	case p.players < 1 || p.players > p.maxPlayers:
		return usageError{Err: fmt.Errorf("--players %d: want 1..--max-players (%d)", p.players, p.maxPlayers)}
	case p.timeout <= 0:
		return usageError{Err: fmt.Errorf("--player-timeout %v: want a positive duration", p.timeout)}
	case p.perIP < 0:
		return usageError{Err: fmt.Errorf("--max-players-per-ip %d: want 0 (no cap) or more", p.perIP)}
	}
	return nil
}

// config is the server configuration the flags ask for.
func (p *playerFlags) config() rewind.ServerConfig {
	return rewind.ServerConfig{MaxPlayers: p.maxPlayers, StartPlayers: p.players, PlayerTimeout: p.timeout, MaxPlayersPerIP: p.perIP}
}

// serve hosts matches until ctx ends (or --duration passes), then prints
// one key=value line of totals.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	// Everything that can fail is bound before the first udp=/room=/http=
	// line, so a caller reading standard output never sees an address of
	// a command that then exits 1: the HTTP listener first (its metrics
	// are registered once the host exists), then the host.
	if o.httpAddr != "" {
		o.reg = metrics.NewRegistry()
		if o.hs, err = startHTTP(o.httpAddr, o.reg, o.log); err != nil {
			return err
		}
		defer o.hs.close()
		o.hs.cf = &o.cf // the console, mounted once the host exists
	}
	if o.rf.onDemand && o.rf.relay == "" {
		return usageError{Err: errors.New("--on-demand needs --relay URL (the relay asks for the rooms)")}
	}
	if o.rf.relay != "" || (o.rf.room != "" && !o.mf.on()) {
		return o.serveByRelay(ctx, stdout)
	}
	opts := rewind.HostOptions{Server: o.scfg, UDP: o.ucfg, Log: o.gf.logger(o.log)}
	if o.mf.on() && o.jsonAddr != "" {
		return usageError{Err: errors.New("--json serves one match: not with --rooms or --max-matches")}
	}
	if o.mf.on() {
		mo := multiServe{multi: o.mf, game: o.gf, opts: opts, udp: o.udpAddr, room: o.rf.room, reg: o.reg, http: o.hs, duration: o.duration,
			status: func(ctx context.Context, fn func()) func() { return logStatus(ctx, o.status, fn) }}
		return serveMulti(ctx, o.gf.newGame(), mo, stdout, o.log)
	}
	return o.serveMatch(ctx, opts, stdout)
}

// serveOpts is `rewind serve`'s flags, checked, and what they make: the
// match servers' configuration, the logger, the HTTP endpoint.
type serveOpts struct {
	fs                          *flag.FlagSet
	gf                          gameFlags
	pf                          playerFlags
	lf                          logFlags
	rf                          roomFlags  // serve_relay.go
	mf                          multiFlags // serve_multi.go
	recf                        recordFlags
	cf                          consoleFlags      // console.go
	hf                          cliflag.Handshake // the UDP handshake limits (shared with rewind-bench flood)
	udpAddr, jsonAddr, httpAddr string
	udpSet                      bool
	duration, status            time.Duration
	log                         *slog.Logger
	scfg                        rewind.ServerConfig
	ucfg                        rewind.UDPConfig
	reg                         *prometheus.Registry
	hs                          *httpServer
}

// parseServe reads and checks serve's flags.
func parseServe(args []string, stderr io.Writer) (*serveOpts, error) {
	o := &serveOpts{}
	fs := newFlags("serve", "rewind serve --game sand --udp ADDR [flags]\n       rewind serve --game sand --relay URL [--room CODE] [--udp ADDR] [flags]\n       rewind serve --game sand --relay URL [--rooms N] [--max-matches M] [--on-demand] [flags]", stderr)
	o.fs = fs
	o.gf.add(fs)
	fs.StringVar(&o.udpAddr, "udp", "0.0.0.0:7777", "UDP address to listen on (port 0 picks a free one; the line udp=HOST:PORT on standard output says which); with --json, UDP only if given")
	fs.StringVar(&o.jsonAddr, "json", "", "also serve the JSON lockstep gateway (docs/gateway.md) over WebSocket on this TCP address (the line json=ws://HOST:PORT/ on standard output says which)")
	o.pf.add(fs, "most players in a match", "players that must have connected before the match's first tick; later ones join while the server still keeps every tick since the start (4 s)")
	cliflag.HTTP(fs, &o.httpAddr, "", "Prometheus /metrics, /debug/pprof/, the probes /healthz and /readyz and, with --console, the console (empty: no listener)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: run until interrupted)")
	fs.DurationVar(&o.status, "status", 10*time.Second, "log a status line this often (0: never)")
	readBuf := fs.Int("udp-read-buffer", 0, "the UDP socket's receive buffer in bytes (SO_RCVBUF; 0: the system's default); the kernel may grant another size (Linux doubles it, capped at 2 × net.core.rmem_max): the log line \"udp socket buffers\" says what it got")
	writeBuf := fs.Int("udp-write-buffer", 0, "the UDP socket's send buffer in bytes (SO_SNDBUF; 0: the system's default; Linux caps it at 2 × net.core.wmem_max)")
	o.hf.Add(fs)
	keyFile := fs.String("key-file", "", "the server's long-term UDP key: read from this file, or created there (mode 0600) if missing; without it a new key each run (the line server_key=KEY on standard output says which; players pin it with play --server-key)")
	stallFlag := fs.String("stall", "never", "stall policy: never (a late input keeps its last value), wait:DURATION (hold a tick up to DURATION for a missing input) or acks:K (pause while a player has not acknowledged a tick K ticks old; acks alone: half the tick rate)")
	o.lf.add(fs)
	o.rf.add(fs)
	o.mf.add(fs)
	o.cf.add(fs)
	checkpoint := fs.Duration("checkpoint", 0, "how often the server snapshots its world (0: the default, 250ms); one tick (e.g. 16ms at 60 Hz) lets a play --debug-desync player get the server's world of any desynced tick even when the game's own replay of it differs (a non-deterministic game)")
	o.recf.add(fs, "record every match into this directory: a replay file per match, created at its first tick, named by its start (names sort in start order; each path is logged)")
	if err := parseQuiet(fs, "serve", args, stderr); err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	stall, err := server.ParseStall(*stallFlag)
	if err != nil {
		return nil, usageError{Err: fmt.Errorf("--stall %s: want never, wait:DURATION or acks:K", *stallFlag)}
	}
	if o.log, err = o.lf.logger(stderr); err != nil {
		return nil, err
	}
	o.scfg = stallConfig(o.pf.config(), stall, o.log)
	if o.scfg.NewRecorder, err = o.recf.perMatch(&o.gf, o.log); err != nil {
		return nil, err
	}
	if *checkpoint < 0 {
		return nil, usageError{Err: errors.New("--checkpoint must not be negative")}
	}
	o.scfg.Checkpoint = *checkpoint
	if *readBuf < 0 || *writeBuf < 0 {
		return nil, usageError{Err: errors.New("--udp-read-buffer and --udp-write-buffer must not be negative")}
	}
	o.ucfg = rewind.UDPConfig{ReadBuffer: *readBuf, WriteBuffer: *writeBuf}
	if err := o.hf.Apply(&o.ucfg); err != nil {
		return nil, usageError{Err: err}
	}
	if *keyFile != "" {
		key, created, err := loadKeyFile(*keyFile)
		if err != nil {
			return nil, err
		}
		if created {
			o.log.Info("server key created", "key_file", *keyFile, "server_key", key.Public().String())
		}
		o.ucfg.StaticKey = key
	}
	return o, nil
}

// check checks the flags that need no logger.
func (o *serveOpts) check() error {
	if err := o.gf.check(); err != nil {
		return err
	}
	if err := o.pf.check(); err != nil {
		return err
	}
	if err := o.mf.check(); err != nil {
		return err
	}
	o.fs.Visit(func(f *flag.Flag) { o.udpSet = o.udpSet || f.Name == "udp" })
	if o.udpSet && o.udpAddr == "" {
		return usageError{Err: errors.New(`--udp "": give an address (0.0.0.0:7777 listens on every interface, 127.0.0.1:0 on loopback with a free port)`)}
	}
	if o.rf.timeout <= 0 {
		return usageError{Err: errors.New("--relay-timeout must be positive")}
	}
	if err := o.rf.split(); err != nil {
		return err
	}
	if o.duration < 0 || o.status < 0 {
		return usageError{Err: errors.New("--duration and --status must not be negative")}
	}
	if o.cf.on && o.httpAddr == "" {
		return usageError{Err: errors.New("--console is served on the --http address: give --http ADDR")}
	}
	return o.cf.check()
}

// serveByRelay hosts rooms of a relay (--relay): one room, or many
// through one relay connection.
func (o *serveOpts) serveByRelay(ctx context.Context, stdout io.Writer) error {
	rf, mf, gf, log := o.rf, o.mf, o.gf, o.log
	if rf.relay == "" {
		return usageError{Err: errors.New("--room needs --relay URL")}
	}
	// A list of relays on its own, or --server-token: a match server of
	// one room (registered with the relay, proving its token; it claims
	// its room back at a live relay); with --host-migration, one room
	// hosted at the first relay that answers (rooms.Host), whose players
	// carry the match on when this server goes.
	if rf.tokenFile != "" && rf.migrate {
		return usageError{Err: errors.New("--server-token registers a match server with the relay; a room hosted for --host-migration is hosted as a player's (no token needed): not both")}
	}
	listServer := (len(rf.more) > 0 || rf.tokenFile != "") && !rf.migrate
	many := mf.on() || rf.onDemand || listServer
	if listServer && !rf.onDemand && mf.rooms == 0 && mf.maxMatches == 0 {
		mf.rooms = 1
	}
	if many && rf.migrate {
		return usageError{Err: errors.New("with --relay, --rooms N, --max-matches and --on-demand host many rooms through one relay connection: their matches do not migrate (not with --host-migration)")}
	}
	if many && !rf.onDemand && mf.rooms < 1 {
		return usageError{Err: errors.New("with --relay, --max-matches needs --rooms N (rooms opened at start) or --on-demand")}
	}
	if o.jsonAddr != "" {
		return usageError{Err: errors.New("--json serves a match of its own: not with --relay")}
	}
	ro := roomServe{fs: o.fs, rooms: rf, multi: mf, game: gf, udp: o.udpAddr, reg: o.reg, http: o.hs, duration: o.duration, status: o.status, server: o.scfg, udpConfig: o.ucfg}
	if mf.rooms > 1 || mf.maxMatches > 0 || rf.onDemand || listServer { // serve_multi_relay.go
		return serveRooms(ctx, gf.newGame(), ro, stdout, log)
	}
	return serveRoom(ctx, gf.newGame(), ro, stdout, log)
}

// serveMatch hosts one match at a time on UDP (and --json), then prints
// the totals.
func (o *serveOpts) serveMatch(ctx context.Context, opts rewind.HostOptions, stdout io.Writer) error {
	gf, log := o.gf, o.log
	if gf.entry.Hidden && o.jsonAddr != "" {
		return usageError{Err: fmt.Errorf("--json: the JSON gateway sends whole worlds, which would show what %s hides from its players (docs/scenes.md)", gf.name)}
	}
	plan := matchPlan{udp: o.jsonAddr == "" || o.udpSet, udpAddr: o.udpAddr, json: o.jsonAddr, reg: o.reg, log: gf.logger(log), opts: opts}
	var host servedHost
	var js *jsonServe
	var err error
	host, js, err = hostMatch(gf.newGame(), gf.entry.Destination, gf.entry.DestinationBound, plan)
	if err != nil {
		return err
	}
	defer host.Close()
	if js != nil {
		defer js.close()
	}
	udpAddrPort, hasUDP := host.UDPAddr()
	if hasUDP {
		fmt.Fprintf(stdout, "udp=%s\n", udpAddrPort)
		printServerKey(stdout, host.Conn())
		logUDPBuffers(log, host.Conn(), o.ucfg)
	}
	if js != nil {
		fmt.Fprintf(stdout, "json=%s\n", js.url)
	}
	if o.hs != nil {
		o.hs.mountConsole(&matchConsole{source: "serve", game: gf.name, max: o.pf.maxPlayers, hosted: hostedAt("here", udpAddrPort, hasUDP), h: host, code: singleMatch}, stdout)
		fmt.Fprintf(stdout, "http=%s\n", o.hs.Addr())
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	stopStatus := logStatus(ctx, o.status, func() {
		s := host.Stats()
		log.Info("status", "match", s.Matches, "running", s.Running, "tick", s.Match.Tick,
			"players", s.Match.Players, "late_inputs", s.Total.LateInputs,
			"bytes_in", s.UDP.BytesIn, "bytes_out", s.UDP.BytesOut,
			"malformed", s.UDP.Malformed+s.Total.BadDatagrams, "refusals", s.Total.Refused+s.UDP.Refused)
	})
	err = host.Run(ctx)
	stopStatus()
	if err == nil {
		// Stopped on purpose (interrupted, --duration): the match ends,
		// and every player and spectator gets its last ticks first.
		ectx, estop := endContext()
		err = host.End(ectx)
		estop()
	}
	s := host.Stats()
	if cerr := host.Close(); err == nil && cerr != nil {
		err = cerr
	}
	var pairs []any
	if hasUDP {
		pairs = append(pairs, "udp", udpAddrPort)
	}
	pairs = append(pairs, totalPairs(s.Matches, s.Total, s.UDP)...)
	if hasUDP {
		pairs = append(pairs, "udp_bytes_in", s.UDP.BytesIn, "udp_bytes_out", s.UDP.BytesOut)
	}
	if js != nil {
		j := js.stats()
		pairs = append(pairs, "json", js.url, "json_connections", j.Connections, "json_resumes", j.Resumes,
			"json_bytes_in", j.BytesIn, "json_bytes_out", j.BytesOut, "json_errors", j.Errors)
	}
	keyValues(stdout, pairs...)
	return err
}

// servedHost is what serve uses of a rewind.Host, whatever the game's
// input type.
type servedHost interface {
	adminHost // console_serve.go
	UDPAddr() (netip.AddrPort, bool)
	Conn() transport.Conn
	Stats() rewind.HostStats
	Run(ctx context.Context) error
	End(ctx context.Context) error
	Close() error
}

// endContext is the context serve ends its match(es) in once stopped
// (Host.End): the server's Linger bounds the end; a second interrupt cuts
// it short.
func endContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// hostUDP hosts g on a UDP socket at addr, its metrics registered in reg
// (if not nil).
func hostUDP[I any](g rewind.Game[I], addr string, opts rewind.HostOptions, reg *prometheus.Registry) (servedHost, error) {
	host, err := rewind.HostUDP(g, addr, opts)
	if err != nil {
		return nil, err
	}
	if reg != nil {
		metrics.RegisterHost(reg, host, host.Conn().(*udp.Server))
	}
	return host, nil
}

// printServerKey prints server_key=KEY on a line of its own for the UDP
// socket among conn (a udp.Server, or a MultiConn with one), if it seals.
func printServerKey(stdout io.Writer, conn transport.Conn) {
	for _, u := range udpServers(conn) {
		if !u.PublicKey().IsZero() {
			fmt.Fprintf(stdout, "server_key=%s\n", u.PublicKey())
		}
	}
}

// udpServers returns the UDP sockets among conn (a udp.Server, or a
// MultiConn's members).
func udpServers(conn transport.Conn) []*udp.Server {
	conns := []transport.Conn{conn}
	if m, ok := conn.(*transport.MultiConn); ok {
		conns = conns[:0]
		for i := range m.Members() {
			conns = append(conns, m.Member(i))
		}
	}
	var out []*udp.Server
	for _, c := range conns {
		if u, ok := c.(*udp.Server); ok {
			out = append(out, u)
		}
	}
	return out
}

// logUDPBuffers logs the buffer sizes of the UDP socket among conn as the
// kernel reports them (--udp-read-buffer, --udp-write-buffer): what was
// asked (0: the system's default) and what the socket got, with a
// warning when it got less than asked (Linux grants twice the request,
// the half its bookkeeping, up to twice its cap, net.core.rmem_max or
// wmem_max: a warning there means the cap cut it; raise it with sysctl).
func logUDPBuffers(log *slog.Logger, conn transport.Conn, asked rewind.UDPConfig) {
	for _, u := range udpServers(conn) {
		read, write, ok := u.SocketBuffers()
		if !ok {
			continue
		}
		args := []any{"read_buffer", read, "read_buffer_asked", asked.ReadBuffer,
			"write_buffer", write, "write_buffer_asked", asked.WriteBuffer}
		granted := 1 // what the kernel grants per byte asked, uncapped
		if runtime.GOOS == "linux" {
			granted = 2
		}
		if read < granted*asked.ReadBuffer || write < granted*asked.WriteBuffer {
			log.Warn("udp socket buffers capped by the kernel (sysctl net.core.rmem_max, net.core.wmem_max)", args...)
			continue
		}
		log.Info("udp socket buffers", args...)
	}
}

// stallConfig sets the stall policy on cfg and logs every change of the
// set of players a stalled match waits for (waiting_for= empty when the
// match goes on).
func stallConfig(cfg rewind.ServerConfig, stall server.Stall, log *slog.Logger) rewind.ServerConfig {
	cfg.Stall = stall
	cfg.OnWaiting = func(_ time.Time, tick uint32, players uint64) {
		log.Info("stall", "tick", tick, "waiting_for", server.WaitingIDs(players))
	}
	return cfg
}

// totalPairs are the key=value pairs of a host's totals that serve's last
// line gives alike for a UDP host and for a room host.
func totalPairs(matches uint64, total rewind.ServerStats, udp rewind.UDPStats) []any {
	return []any{
		"matches", matches,
		"ticks", total.Tick,
		"joins", total.Joins,
		"leaves", total.Leaves,
		"refusals", total.Refused + udp.Refused,
		"player_ticks", total.PlayerTicks,
		"late_inputs", total.LateInputs,
		"malformed", udp.Malformed + total.BadDatagrams,
	}
}

// logStatus calls fn every interval until ctx ends or the returned stop is
// called (which waits for the goroutine).
func logStatus(ctx context.Context, interval time.Duration, fn func()) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() { cancel(); <-done }
}
