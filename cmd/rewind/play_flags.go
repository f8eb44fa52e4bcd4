package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/rewindnet/rewind/internal/cli/cliflag"
	"github.com/rewindnet/rewind/relay/roomcode"
)

// playOpts is play's (or watch's) flags, checked.
type playOpts struct {
	watch                                                   bool
	fs                                                      *flag.FlagSet
	gf                                                      gameFlags
	lf                                                      logFlags
	df                                                      desyncFlags // desync.go
	rf                                                      recordFlags // replay.go
	jf                                                      joinFlags   // play_relay.go
	headless, ready, lockstep                               *bool
	addr, serverKey, knownServers, room, input, delay, name *string
	chatFile, httpAddr                                      *string
	seed                                                    *uint64
	until                                                   *uint
	timeout, status, spectateDelay                          *time.Duration
	hostSettings, autoDelay                                 bool
	inputDelay                                              int
	chatLines                                               []string
	log                                                     *slog.Logger
}

// parsePlay defines, reads and checks play's flags (watch's with watch).
func parsePlay(watch bool, args []string, stderr io.Writer) (*playOpts, error) {
	o := &playOpts{watch: watch}
	fs := newFlags("play", "rewind play --headless --connect HOST:PORT [--room CODE] [--until-tick T] [flags]\n       rewind play --headless --join CODE --relay URL[,URL…] [--until-tick T] [flags]", stderr)
	if watch {
		fs = newFlags("watch", watchUsage, stderr)
		o.spectateDelay = fs.Duration("delay", 0, "watch this far behind the match: the server sends a tick no earlier than this after it ran it (for tournaments; at most 3 s with the server's default 4 s history)")
	}
	o.fs = fs
	o.gf.add(fs)
	o.headless = fs.Bool("headless", false, "play without a view (a bot); required: the windowed player is the view module's window (cd view && go run ./window --join CODE)")
	o.addr = fs.String("connect", "", "the server's UDP address, HOST:PORT (as rewind serve printed it)")
	o.serverKey = fs.String("server-key", "", "with --connect: the server's key (64 hex digits, as serve printed server_key=); a server proving another key is refused (without it, any key is taken and logged)")
	o.knownServers = fs.String("known-servers", "", "with --connect: a file of HOST:PORT KEY lines; a listed server must prove its key, an unlisted one's key is added (trust on first use)")
	o.room = fs.String("room", "", "with --connect: join the match of this room code on a server of many matches (rewind serve --rooms N printed one room=CODE line each); without it, the server's first room")
	// A player's flags: a spectator (watch) sends no input, name, ready
	// flag or chat (the server would drop them), so watch has none of
	// them and refuses them as undefined.
	pf := fs
	if watch {
		pf = flag.NewFlagSet("player", flag.ContinueOnError)
	}
	o.input = pf.String("input", "scripted", "the bot's input: scripted (a deterministic script of --seed and the player id) or random (seeded by --seed)")
	o.seed = pf.Uint64("seed", 0, "seed of the bot's input")
	o.until = fs.Uint("until-tick", 0, "stop once the verified tick reaches this and print its hash; a player rebased past it (joined later, or fell further behind than the server keeps ticks) stops at the tick it has, whose hash it prints (0: play until interrupted)")
	o.timeout = fs.Duration("timeout", 5*time.Second, "give up when the server does not answer (or goes silent) for this long")
	o.delay = pf.String("input-delay", "", "ticks of input delay, 0..60 (fewer rollbacks for a little latency; default 0, with --lockstep 2) or auto (with --lockstep: from the round trip)")
	o.name = pf.String("name", "", "this player's name (1 to 32 bytes), shown to every player")
	o.ready = pf.Bool("ready", false, "say this player is ready to start, once in the match (the host sees it; received ready flags, the host's start and end with results are logged on standard error)")
	o.chatFile = pf.String("chat-file", "", "send each line of this file as chat, one line a second (received chat is logged on standard error: chat from=ID name=NAME text=...)")
	o.lockstep = pf.Bool("lockstep", false, "play lockstep: never predict, show only the ticks the server verified, stall on a missing one")
	o.status = fs.Duration("status", time.Second, "print a status line to standard error this often (0: never)")
	o.httpAddr = new(string)
	cliflag.HTTP(fs, o.httpAddr, "", "Prometheus /metrics and /debug/pprof/ (empty: no listener)")
	o.lf.add(fs)
	o.df.add(fs)
	o.rf.add(fs, "record the ticks this player verifies into a replay file (rewind replay FILE verifies it)")
	o.jf.add(fs)
	if err := parseQuiet(fs, fs.Name(), args, stderr); err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	var err error
	if o.log, err = o.lf.logger(stderr); err != nil {
		return nil, err
	}
	return o, nil
}

// check checks the flags read.
func (o *playOpts) check() error {
	if err := o.gf.check(); err != nil {
		return err
	}
	// Without --grid or --tick-rate the player plays the host's match
	// settings, which come with the welcome.
	o.hostSettings = o.gf.entry.HostSettings && !o.gf.given(o.fs)
	if err := o.jf.check(*o.addr); err != nil {
		return err
	}
	switch {
	case !*o.headless:
		return usageError{Err: errors.New("rewind play is the headless bot (--headless); to play in a window: cd view && go run ./window --join CODE --relay URL (or --connect HOST:PORT)")}
	case *o.addr == "" && o.jf.code == "":
		return usageError{Err: errors.New("--connect HOST:PORT is required (or --join CODE)")}
	case *o.room != "" && *o.addr == "":
		return usageError{Err: errors.New("--room CODE goes with --connect HOST:PORT (to join by code through a relay: --join CODE)")}
	case *o.room != "" && !roomcode.ValidLen(strings.ToUpper(*o.room)):
		return usageError{Err: fmt.Errorf("--room %q: a room code is 6 to 12 characters of %s", *o.room, roomcode.Alphabet)}
	case *o.input != "scripted" && *o.input != "random":
		return usageError{Err: fmt.Errorf("--input %q: want scripted or random", *o.input)}
	case *o.until > 1<<31:
		return usageError{Err: fmt.Errorf("--until-tick %d: too large", *o.until)}
	case *o.timeout <= 0:
		return usageError{Err: fmt.Errorf("--timeout %v: want a positive duration", *o.timeout)}
	case *o.status < 0:
		return usageError{Err: errors.New("--status must not be negative")}
	case o.watch && *o.spectateDelay < 0:
		return usageError{Err: errors.New("--delay must not be negative")}
	}
	var err error
	if o.inputDelay, o.autoDelay, err = parseInputDelay(*o.delay, *o.lockstep); err != nil {
		return err
	}
	if o.chatLines, err = readChatFile(*o.chatFile); err != nil {
		return err
	}
	if len(*o.name) > 32 {
		return usageError{Err: fmt.Errorf("--name: %d bytes, want at most 32", len(*o.name))}
	}
	return nil
}
