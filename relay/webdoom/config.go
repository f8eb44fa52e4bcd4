package webdoom

import (
	"strconv"
	"time"
)

// Config holds every timer and limit of the WebDoom relay. The
// defaults are WebDoom's; tests shorten the timers so that a whole session
// over real sockets runs in seconds.
type Config struct {
	// Fabricate is how long the longest-silent laggard may stay silent
	// before the relay seals the next tic with its cmd fabricated (250 ms).
	Fabricate time.Duration
	// Drop is how long a laggard may stay silent before it is dropped (5 s).
	Drop time.Duration
	// NeverJoined is how long after launch a launch-roster player that never
	// connected its game socket is dropped; until then nothing is
	// fabricated unless every player has sent a cmd (10 s).
	NeverJoined time.Duration
	// JoinTimeout frees a drop-in reservation unused this long (30 s;
	// WEBDOOM_JOIN_TIMEOUT in ms).
	JoinTimeout time.Duration
	// Sweep is the period of the stall and drop checks (50 ms).
	Sweep time.Duration
	// Countdown is the time between countdown steps and launch (1 s).
	Countdown time.Duration
	// CountdownFrom is the first countdown number (3).
	CountdownFrom int
	// JoinMargin is how many tics after a drop-in's first cmd it goes live (12).
	JoinMargin uint32
	// CmdWindow bounds how far ahead of the next tic a cmd is kept (512).
	CmdWindow uint32
	// MaxConns caps open sockets across the three endpoints (50;
	// WEBDOOM_MAX_CONNS).
	MaxConns int
	// RateCap is the most messages a connection may send in one RateWindow;
	// past it the connection is terminated (300; WEBDOOM_RATE_CAP).
	RateCap int
	// RateWindow is the rate cap's tumbling window (1 s).
	RateWindow time.Duration
	// MaxHistoryTics caps the sealed history; past it play continues but
	// drop-ins and spectators are refused, since a partial history would
	// desync them. 0 means no cap, as WebDoom (WEBDOOM_MAX_HISTORY_TICS).
	MaxHistoryTics int
	// MaxSpectators caps spectators per session; 0 means no cap, as the
	// protocol (WEBDOOM_MAX_SPECTATORS).
	MaxSpectators int
	// LobbyIdle frees the lobby seat of a socket that sent nothing (not
	// even a ping) for this long while no game runs: it is terminated
	// (RefuseLobbyIdle). 0 means the default, 10 minutes; negative keeps
	// seats forever, as WebDoom's own server does (4 silent sockets then
	// lock the lobby for as long as they stay). WebDoom's client sends
	// nothing on its own while it waits in the lobby (no periodic ping),
	// so the limit must outlast a person waiting for friends with the
	// menu open: 10 minutes does, and a squatter's seat is back within 10
	// minutes of its last message instead of never.
	LobbyIdle time.Duration
}

// DefaultConfig returns WebDoom's timers and limits.
func DefaultConfig() Config {
	return Config{
		Fabricate:     250 * time.Millisecond,
		Drop:          5 * time.Second,
		NeverJoined:   10 * time.Second,
		JoinTimeout:   30 * time.Second,
		Sweep:         50 * time.Millisecond,
		Countdown:     time.Second,
		CountdownFrom: 3,
		JoinMargin:    12,
		CmdWindow:     512,
		MaxConns:      50,
		RateCap:       300,
		RateWindow:    time.Second,
		LobbyIdle:     DefaultLobbyIdle,
	}
}

// DefaultLobbyIdle is Config.LobbyIdle's default (see there for why).
const DefaultLobbyIdle = 10 * time.Minute

// withDefaults returns c with every zero timer or limit replaced by
// WebDoom's default (a zero sweep period would spin).
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	set := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&c.Fabricate, d.Fabricate)
	set(&c.Drop, d.Drop)
	set(&c.NeverJoined, d.NeverJoined)
	set(&c.JoinTimeout, d.JoinTimeout)
	set(&c.Sweep, d.Sweep)
	set(&c.Countdown, d.Countdown)
	set(&c.RateWindow, d.RateWindow)
	if c.LobbyIdle == 0 {
		c.LobbyIdle = d.LobbyIdle
	}
	if c.CountdownFrom <= 0 {
		c.CountdownFrom = d.CountdownFrom
	}
	if c.JoinMargin == 0 {
		c.JoinMargin = d.JoinMargin
	}
	if c.CmdWindow == 0 {
		c.CmdWindow = d.CmdWindow
	}
	if c.MaxConns <= 0 {
		c.MaxConns = d.MaxConns
	}
	if c.RateCap <= 0 {
		c.RateCap = d.RateCap
	}
	return c
}

// WebDoom's environment variables, read by ConfigFromEnv.
const (
	EnvJoinTimeout   = "WEBDOOM_JOIN_TIMEOUT"     // ms
	EnvMaxConns      = "WEBDOOM_MAX_CONNS"        // connections
	EnvRateCap       = "WEBDOOM_RATE_CAP"         // messages per second
	EnvMaxHistory    = "WEBDOOM_MAX_HISTORY_TICS" // tics
	EnvMaxSpectators = "WEBDOOM_MAX_SPECTATORS"   // spectators
)

// ConfigFromEnv returns c with WebDoom's environment variables
// applied, read through getenv (os.Getenv). As in WebDoom, a value that is
// not a positive integer keeps the default, so a typo cannot lift a cap.
func ConfigFromEnv(c Config, getenv func(string) string) Config {
	envInt := func(name string, dflt int) int {
		v, err := strconv.Atoi(getenv(name))
		if err != nil || v <= 0 {
			return dflt
		}
		return v
	}
	c.JoinTimeout = time.Duration(envInt(EnvJoinTimeout, int(c.JoinTimeout/time.Millisecond))) * time.Millisecond
	c.MaxConns = envInt(EnvMaxConns, c.MaxConns)
	c.RateCap = envInt(EnvRateCap, c.RateCap)
	c.MaxHistoryTics = envInt(EnvMaxHistory, c.MaxHistoryTics)
	c.MaxSpectators = envInt(EnvMaxSpectators, c.MaxSpectators)
	return c
}
