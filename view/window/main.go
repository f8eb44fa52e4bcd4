//go:build !js

// Command window is rewind's desktop player: a window with the sand view
// (the same view the browser page draws), steered by the keyboard and
// mouse. It joins a match by room code (--join CODE --relay URL, as
// `rewind demo` or `rewind serve --relay` printed them) or by address
// (--connect HOST:PORT, as `rewind serve` printed it):
//
//	go run ./window --join CODE --relay ws://127.0.0.1:8080/rooms
//
// (from the view directory). --watch joins either way as a spectator (like
// `rewind watch`): no player slot, no input, only the verified ticks,
// --delay D behind the match. --until-tick T makes it exit once its
// verified tick reaches T, printing `rewind play`'s last line on stdout;
// --screenshot FILE saves its last frame as PNG before it exits.
//
// --replay FILE plays a replay instead (of sand, as `rewind serve --record`
// or `rewind play --record` wrote it), simulating the match again and
// checking every tick's recorded hash: --speed X plays it X times as fast,
// --seek T starts at tick T (from the nearest keyframe at or before it),
// and in the window space pauses, the left and right arrows seek ten
// seconds back and on, up and down double and halve the speed. With
// --until-tick T it exits at tick T, printing the replay's status line
// (replay=FILE tick=T last=L speed=X paused=BOOL hash=H); a tick that does
// not hash as recorded then ends it with an error (without --until-tick
// the HUD shows it and the window stays).
//
// On Linux it needs cgo and the X11/GL headers (libgl1-mesa-dev,
// libx11-dev, libxrandr-dev, libxcursor-dev, libxinerama-dev, libxi-dev,
// libxxf86vm-dev) and libasound2-dev for sound; under Xvfb,
// LIBGL_ALWAYS_SOFTWARE=1 renders with Mesa's software OpenGL.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/view"
	"github.com/rewindnet/rewind/view/seat"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rewind window:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: window (--join CODE [--relay URL[,URL…]] | --connect HOST:PORT) [--watch [--delay D]] | --replay FILE [--speed X] [--seek T] [--until-tick T] [--screenshot FILE] [flags]")
		fs.PrintDefaults()
	}
	code := fs.String("join", "", "join the match in this room (the code rewind demo or rewind serve --relay printed)")
	relayURL := fs.String("relay", "ws://127.0.0.1:8080/rooms", "with --join: the rooms relay's ws:// URL, or a comma-separated list of a fleet's relays (relay --redis) tried in turn (as rewind play --relay)")
	addr := fs.String("connect", "", "join the match at this UDP address, HOST:PORT (as rewind serve printed it)")
	watch := fs.Bool("watch", false, "with --join or --connect: watch the match as a spectator (no player slot, no input, only the verified ticks)")
	delay := fs.Duration("delay", 0, "with --watch: watch this far behind the match (the server sends a tick no earlier than this after it ran it; at most 3 s with the server's default 4 s history)")
	until := fs.Uint("until-tick", 0, "exit once the verified tick reaches this, printing rewind play's last line (0: play until the window closes)")
	shot := fs.String("screenshot", "", "save the last frame as PNG in this file before exiting")
	side := fs.Int("grid", 256, "the sand grid's side (the host's --grid)")
	rate := fs.Int("tick-rate", rewind.DefaultTickRate, "the host's tick rate")
	timeout := fs.Duration("timeout", 5*time.Second, "give up when the server does not answer (or goes silent) for this long")
	joinWait := fs.Duration("join-timeout", 15*time.Second, "with --join: give up when the data channel to the host is not open within this long")
	replay := fs.String("replay", "", "play this replay file (of sand) instead of joining a match")
	speed := fs.Float64("speed", 1, "with --replay: the playing speed (2: twice as fast)")
	seek := fs.Uint("seek", 0, "with --replay: start at this tick (0: the replay's start)")
	mute := fs.Bool("mute", false, "no sound (also off when the machine has no sound device)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *until > 1<<31 || *seek > 1<<31:
		return fmt.Errorf("--until-tick %d, --seek %d: too large", *until, *seek)
	case *replay != "" && (*code != "" || *addr != ""):
		return errors.New("give --replay FILE or a match to join, not both")
	case *replay != "" && *watch:
		return errors.New("--watch joins a match (--join or --connect); --replay plays a file")
	case *delay < 0 || (*delay != 0 && !*watch):
		return fmt.Errorf("--delay %v: want a positive duration, with --watch", *delay)
	case *replay != "":
		return runReplay(*replay, *speed, uint32(*seek), uint32(*until), *shot)
	case (*code == "") == (*addr == ""):
		return errors.New("give --join CODE (with --relay URL), --connect HOST:PORT or --replay FILE")
	case *rate <= 0 || *rate > 1000:
		return fmt.Errorf("--tick-rate %d: want 1..1000", *rate)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	where := *addr
	connect := func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		if *code != "" {
			jctx, cancel := context.WithTimeout(ctx, *joinWait)
			defer cancel()
			urls := roomclient.SplitURLs(*relayURL)
			if len(urls) == 0 {
				return nil, fmt.Errorf("--relay %q: no URL", *relayURL)
			}
			s, err := rooms.Join(jctx, g, urls[0], *code, rooms.JoinOptions{Options: opts, Relays: urls[1:], HostMigration: true})
			if err != nil {
				return nil, fmt.Errorf("cannot join room %s at %s: %w", *code, *relayURL, err)
			}
			return s, nil
		}
		s, err := rewind.ConnectUDP(ctx, g, *addr, rewind.UDPOptions{Options: opts,
			UDP: transport.UDPConfig{HandshakeTimeout: *timeout, IdleTimeout: *timeout}})
		if err != nil {
			return nil, fmt.Errorf("cannot connect to %s: %w", *addr, err)
		}
		return s, nil
	}
	p, err := seat.NewPlayer(seat.Config{Room: *code, Where: where, Side: *side, Until: uint32(*until), Timeout: *timeout,
		Spectate: *watch, Delay: *delay}, connect)
	if err != nil {
		return err
	}
	defer p.Close()

	g := view.New(*side)
	g.SetPlayer(p)
	if !*mute && hasSoundDevice() {
		g.Sound = view.NewSound()
	}
	var shotErr error
	g.OnFrame = func(screen *ebiten.Image) {
		if !p.Done() && ctx.Err() == nil {
			return
		}
		if *shot != "" {
			shotErr = savePNG(*shot, screen)
		}
		g.Stop()
	}

	// Ticks come from a ticker of their own, not from frames.
	var wg sync.WaitGroup
	wg.Add(1)
	tickCtx, stopTicks := context.WithCancel(ctx)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second / time.Duration(*rate) / 4)
		defer t.Stop()
		for !p.Done() {
			select {
			case <-tickCtx.Done():
				return
			case now := <-t.C:
				p.Tick(now)
			}
		}
	}()

	title := "rewind: " + where
	if *code != "" {
		title = "rewind: room " + *code
	}
	if *watch {
		title += " (spectating)"
	}
	ebiten.SetWindowTitle(title)
	ebiten.SetWindowSize(*side*view.Scale, *side*view.Scale+40)
	ebiten.SetRunnableOnUnfocused(true)
	runErr := ebiten.RunGame(g)
	stopTicks()
	wg.Wait()
	if runErr != nil {
		return runErr
	}
	if shotErr != nil {
		return shotErr
	}
	if err := p.Err(); err != nil {
		return err
	}
	if *until != 0 && !p.Done() {
		return fmt.Errorf("the window closed before verified tick %d", *until)
	}
	fmt.Println(p.FinalLine())
	return nil
}

// runReplay plays the replay in file in the window (see the command's
// doc).
func runReplay(file string, speed float64, seek, until uint32, shot string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	r, err := seat.NewReplay(filepath.Base(file), b, speed, until)
	if err != nil {
		return err
	}
	if seek != 0 {
		if until != 0 && seek > until {
			return fmt.Errorf("--seek %d is after --until-tick %d", seek, until)
		}
		if _, err := r.Player().Seek(seek); err != nil {
			return err
		}
	}
	side := r.Game().Side
	g := view.New(side)
	g.SetReplay(r)
	var shotErr error
	g.OnFrame = func(screen *ebiten.Image) {
		if !r.Done() && (until == 0 || r.Player().Err() == nil) {
			return // a divergence shows in the HUD, the window stays
		}
		if shot != "" {
			shotErr = savePNG(shot, screen)
		}
		g.Stop()
	}
	ebiten.SetWindowTitle("rewind: replay " + filepath.Base(file))
	ebiten.SetWindowSize(side*view.Scale, side*view.Scale+40)
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil {
		return err
	}
	if shotErr != nil {
		return shotErr
	}
	if err := r.Player().Err(); err != nil {
		return err
	}
	if until != 0 && !r.Done() {
		return fmt.Errorf("the window closed before tick %d", until)
	}
	fmt.Println(r.Status())
	return nil
}

// savePNG writes screen's pixels to file as PNG.
func savePNG(file string, screen *ebiten.Image) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := png.Encode(f, view.Screenshot(screen)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// hasSoundDevice reports whether the machine has an ALSA sound device:
// without one, Ebitengine's audio context fails and ends the game loop.
func hasSoundDevice() bool {
	_, err := os.Stat("/dev/snd")
	return err == nil
}
