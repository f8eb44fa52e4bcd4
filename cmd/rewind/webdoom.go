package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/relay/webdoom"
)

func init() {
	registerInterruptible("webdoom", "WebDoom-compatible lobby and tic relay (stands in for WebDoom's server)", webDoom)
}

// webDoom serves WebDoom's lobby, tic relay, spectators, app, WAD
// library and demo store on one port. DOOM_PORT and DOOM_HOST set the
// address (defaults 8666 and 0.0.0.0) and the flags override them;
// WEBDOOM_JOIN_TIMEOUT, WEBDOOM_MAX_CONNS, WEBDOOM_RATE_CAP,
// WEBDOOM_MAX_HISTORY_TICS and WEBDOOM_MAX_SPECTATORS are honoured.
func webDoom(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return serveWebDoom(ctx, args, os.Getenv, stdout, stderr)
}

// serveWebDoom is the webdoom command until ctx ends.
func serveWebDoom(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	set, err := webDoomSettings(args, getenv, stderr)
	if err != nil {
		return err
	}
	cfg := set.cfg
	level := slog.LevelInfo
	if set.quiet {
		level = slog.LevelWarn
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	for _, w := range set.warnings {
		cfg.Logger.Warn("webdoom: ignoring a bad environment value", "var", w.name, "value", w.value, "using", w.using)
	}
	if cfg.Dir != "" {
		if st, err := os.Stat(cfg.Dir); err != nil || !st.IsDir() {
			return usageError{Err: fmt.Errorf("--dir %s: not a directory", cfg.Dir)}
		}
	}
	ln, err := net.Listen("tcp", set.addr)
	if err != nil {
		return fmt.Errorf("listen on %s (DOOM_HOST/DOOM_PORT or --host/--port): %w", set.addr, err)
	}
	srv := webdoom.NewServer(cfg)
	if set.metrics != "" {
		reg := metrics.NewRegistry()
		reg.MustRegister(metrics.NewWebDoomCollector(srv))
		hs, err := startHTTP(set.metrics, reg, cfg.Logger)
		if err != nil {
			ln.Close()
			srv.Close()
			return fmt.Errorf("--metrics-http: %w", err)
		}
		defer hs.close()
	}
	stopped, watcher := make(chan struct{}), make(chan struct{})
	defer func() { close(stopped); <-watcher }()
	go func() { // ends Serve when ctx ends
		defer close(watcher)
		select {
		case <-ctx.Done():
			srv.Close()
		case <-stopped:
		}
	}()
	dir := cfg.Dir
	if dir == "" {
		dir = "(none: app routes 404)"
	}
	fmt.Fprintf(stdout, "rewind webdoom: listening on http://%s/ (lobby ws://%s/ws/lobby, dir %s)\n", ln.Addr(), ln.Addr(), dir)
	err = srv.Serve(ln)
	srv.Close()
	return err
}

// webDoomSet is what webdoom's environment and flags say.
type webDoomSet struct {
	cfg      webdoom.ServerConfig
	addr     string // host:port of the game port
	quiet    bool
	metrics  string       // --metrics-http address, or "" (off)
	warnings []envWarning // environment values that were ignored
}

// envWarning is an environment variable whose value was not usable.
type envWarning struct{ name, value, using string }

// webDoomSettings reads the command's settings: WebDoom's environment
// variables (through getenv), then the flags, which win. As WebDoom does,
// a bad value (DOOM_PORT=abc, WEBDOOM_RATE_CAP=-5) keeps the default; it is
// returned in warnings so that the command logs it.
func webDoomSettings(args []string, getenv func(string) string, stderr io.Writer) (webDoomSet, error) {
	var set webDoomSet
	host, port := "0.0.0.0", 8666
	if v := getenv("DOOM_HOST"); v != "" {
		host = v
	}
	if v := getenv("DOOM_PORT"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 65536 {
			port = n
		} else {
			set.warnings = append(set.warnings, envWarning{"DOOM_PORT", v, strconv.Itoa(port)})
		}
	}
	cfg := webdoom.DefaultServerConfig()
	cfg.Config = webdoom.ConfigFromEnv(cfg.Config, getenv)
	for _, e := range []struct {
		name  string
		using any
	}{
		{webdoom.EnvJoinTimeout, cfg.JoinTimeout},
		{webdoom.EnvMaxConns, cfg.MaxConns},
		{webdoom.EnvRateCap, cfg.RateCap},
		{webdoom.EnvMaxHistory, cfg.MaxHistoryTics},
		{webdoom.EnvMaxSpectators, cfg.MaxSpectators},
	} {
		// The rule of webdoom.ConfigFromEnv: a positive integer, or the default.
		if v := getenv(e.name); v != "" {
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				set.warnings = append(set.warnings, envWarning{e.name, v, fmt.Sprint(e.using)})
			}
		}
	}
	fs := newFlags("webdoom", "rewind webdoom [--dir DIR] [--host H] [--port P] [--metrics-http ADDR]", stderr)
	fs.StringVar(&cfg.Dir, "dir", "", "WebDoom tree to serve: client/, build/, wads/lib/, wads/manifest.json (none: lobby and relay only)")
	fs.StringVar(&host, "host", host, "address to listen on ($DOOM_HOST)")
	fs.IntVar(&port, "port", port, "port to listen on ($DOOM_PORT)")
	fs.IntVar(&cfg.MaxHistoryTics, "max-history", cfg.MaxHistoryTics, "cap on sealed tics kept for drop-in and spectators, 0 = none ($WEBDOOM_MAX_HISTORY_TICS)")
	fs.DurationVar(&cfg.LobbyIdle, "lobby-idle", webdoom.DefaultLobbyIdle, "free the lobby seat of a socket silent this long while no game runs (0: never, as WebDoom's own server)")
	fs.StringVar(&set.metrics, "metrics-http", "", "serve Prometheus /metrics and /debug/pprof/ on this separate TCP address, e.g. 127.0.0.1:9666 (empty: off; never on the game port)")
	fs.BoolVar(&set.quiet, "quiet", false, "log only warnings")
	if err := parseFlags(fs, args); err != nil {
		return set, err
	}
	if port < 0 || port > 65535 {
		return set, usageError{Err: fmt.Errorf("--port %d out of range", port)}
	}
	if cfg.LobbyIdle < 0 {
		return set, usageError{Err: fmt.Errorf("--lobby-idle %v: must not be negative", cfg.LobbyIdle)}
	}
	if cfg.LobbyIdle == 0 {
		cfg.LobbyIdle = -1 // never: the Config's 0 means its default
	}
	if cfg.MaxHistoryTics < 0 {
		return set, usageError{Err: fmt.Errorf("--max-history %d: must be 0 (no cap) or more", cfg.MaxHistoryTics)}
	}
	set.cfg, set.addr = cfg, net.JoinHostPort(host, strconv.Itoa(port))
	return set, nil
}
