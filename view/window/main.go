//go:build !js

// Command window is rewind's desktop player: a window that draws the
// match's game (its draw list, as the browser page draws it; package
// view) with the engine's HUD around it, steered by the keyboard and
// mouse through the game's Control function. It joins a match by room code (--join CODE --relay URL, as
// `rewind demo` or `rewind serve --relay` printed them) or by address
// (--connect HOST:PORT, as `rewind serve` printed it):
//
//	go run ./window --join CODE --relay ws://127.0.0.1:8080/rooms
//
// (from the view directory). --game NAME joins a match of any game
// registered in view/internal/allgames (sand, the default; ships, cards,
// walkers, paint: the host's --game), which draws itself and reads the
// keys and mouse through its registry entry; the game's settings are
// flags too (--grid N, --tick-rate R: without any, a game that takes the
// host's settings plays the host's). --watch joins either way as a spectator (like
// `rewind watch`): no player slot, no input, only the verified ticks,
// --delay D behind the match. --until-tick T makes it exit once its
// verified tick reaches T, printing `rewind play`'s last line on stdout;
// --screenshot FILE saves its last frame as PNG before it exits. It
// opens as large as fits a 1280×800 screen, resizable, and prints its
// status line (the page's #status) on stderr every --status D (5 s).
//
// --replay FILE plays a replay instead (of any registered game, the one
// its header names, as `rewind serve --record` or `rewind play --record`
// wrote it), simulating the match again and
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
// libxxf86vm-dev) and libasound2-dev for sound, or -tags nosound for a
// window without sound that needs no ALSA headers; under Xvfb,
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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/transport/udp"
	"github.com/rewindnet/rewind/view"
	_ "github.com/rewindnet/rewind/view/internal/allgames" // the games a window plays
	"github.com/rewindnet/rewind/view/seat"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rewind window:", err)
		os.Exit(1)
	}
}

// options is the window's flags.
type options struct {
	code, relayURL, addr, shot, replay *string
	game                               *string
	watch, mute                        *bool
	delay, timeout, joinWait, status   *time.Duration
	until, seek                        *uint
	rate                               *int
	speed                              *float64
	settings                           map[string]*int // every registered game's settings, by name
	entry                              *games.Entry    // --game's
	hostSettings                       bool            // play the host's settings (no setting flag given)
}

// parse reads and checks the window's flags.
func parse(args []string) (*options, error) {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: window (--join CODE [--relay URL[,URL…]] | --connect HOST:PORT) [--watch [--delay D]] | --replay FILE [--speed X] [--seek T] [--until-tick T] [--screenshot FILE] [flags]")
		fs.PrintDefaults()
	}
	o := &options{}
	o.code = fs.String("join", "", "join the match in this room (the code rewind demo or rewind serve --relay printed)")
	o.relayURL = fs.String("relay", "ws://127.0.0.1:8080/rooms", "with --join: the rooms relay's ws:// URL, or a comma-separated list of a fleet's relays (relay --redis) tried in turn (as rewind play --relay)")
	o.addr = fs.String("connect", "", "join the match at this UDP address, HOST:PORT (as rewind serve printed it)")
	o.watch = fs.Bool("watch", false, "with --join or --connect: watch the match as a spectator (no player slot, no input, only the verified ticks)")
	o.delay = fs.Duration("delay", 0, "with --watch: watch this far behind the match (the server sends a tick no earlier than this after it ran it; at most 3 s with the server's default 4 s history)")
	o.until = fs.Uint("until-tick", 0, "exit once the verified tick reaches this, printing rewind play's last line (0: play until the window closes)")
	o.shot = fs.String("screenshot", "", "save the last frame as PNG in this file before exiting")
	o.game = fs.String("game", defaultGame, "the match's game, one of "+strings.Join(games.Names(), ", ")+" (the host's --game)")
	o.rate = fs.Int("tick-rate", rewind.DefaultTickRate, "the host's tick rate")
	o.settings = map[string]*int{}
	for _, st := range games.Settings() {
		o.settings[st.Name] = fs.Int(st.Name, st.Default, st.Usage)
	}
	o.timeout = fs.Duration("timeout", 5*time.Second, "give up when the server does not answer (or goes silent) for this long")
	o.joinWait = fs.Duration("join-timeout", 15*time.Second, "with --join: give up when the data channel to the host is not open within this long")
	o.replay = fs.String("replay", "", "play this replay file (of sand) instead of joining a match")
	o.speed = fs.Float64("speed", 1, "with --replay: the playing speed (2: twice as fast)")
	o.seek = fs.Uint("seek", 0, "with --replay: start at this tick (0: the replay's start)")
	o.status = fs.Duration("status", 5*time.Second, "print the seat's status line (the page's #status: room=… tick=… verified_tick=… state=…) on standard error this often (0: never)")
	o.mute = fs.Bool("mute", false, "no sound (also off when the machine has no sound device)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case *o.until > 1<<31 || *o.seek > 1<<31:
		return nil, fmt.Errorf("--until-tick %d, --seek %d: too large", *o.until, *o.seek)
	case *o.replay != "" && (*o.code != "" || *o.addr != ""):
		return nil, errors.New("give --replay FILE or a match to join, not both")
	case *o.replay != "" && *o.watch:
		return nil, errors.New("--watch joins a match (--join or --connect); --replay plays a file")
	case *o.status < 0:
		return nil, fmt.Errorf("--status %v: must not be negative", *o.status)
	case *o.delay < 0 || (*o.delay != 0 && !*o.watch):
		return nil, fmt.Errorf("--delay %v: want a positive duration, with --watch", *o.delay)
	case *o.replay != "":
		return o, nil
	case (*o.code == "") == (*o.addr == ""):
		return nil, errors.New("give --join CODE (with --relay URL), --connect HOST:PORT or --replay FILE")
	case *o.rate <= 0 || *o.rate > 1000:
		return nil, fmt.Errorf("--tick-rate %d: want 1..1000", *o.rate)
	}
	var err error
	if o.entry, err = games.Lookup(*o.game); err != nil {
		return nil, fmt.Errorf("--game: %w", err)
	}
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == games.TickRate {
			given = true
		}
		for _, st := range o.entry.Settings {
			given = given || f.Name == st.Name
		}
	})
	o.hostSettings = o.entry.HostSettings && !given
	return o, nil
}

// defaultGame is --game's default.
const defaultGame = "sand"

// values returns the settings of --game's flags.
func (o *options) values() games.Values {
	v := games.Values{}
	for _, st := range o.entry.Settings {
		v[st.Name] = *o.settings[st.Name]
	}
	return v
}

func run(args []string) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	if *o.replay != "" {
		return runReplay(*o.replay, *o.speed, uint32(*o.seek), uint32(*o.until), *o.shot)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := seat.Config{Room: *o.code, Where: *o.addr, Settings: o.values(), Rate: *o.rate, Until: uint32(*o.until), Timeout: *o.timeout,
		Spectate: *o.watch, Delay: *o.delay, HostSettings: o.hostSettings}
	return playKind(ctx, o, seat.FromEntry(o.entry), cfg)
}

// playKind plays a match of kind k in the window: its seat, drawn and
// steered by the view, whichever game.
func playKind[I comparable](ctx context.Context, o *options, k seat.Kind[I], cfg seat.Config) error {
	p, err := seat.OpenKind(k, cfg, connector[I](o, ctx))
	if err != nil {
		return err
	}
	defer p.Close()
	g := view.New[I](p.Size())
	g.SetPlayer(p)
	g.Sound = sound(*o.mute)
	w, h := g.Size()
	return o.play(ctx, p, screen{game: g, onFrame: &g.OnFrame, stop: g.Stop, w: w, h: h})
}

// connector is how the seat joins the match: by code through the relays,
// or over UDP at --connect.
func connector[I any](o *options, ctx context.Context) seat.ConnectorOf[I] {
	return func(g rewind.Game[I], opts rewind.Options) (*rewind.Session[I], error) {
		if *o.code != "" {
			jctx, cancel := context.WithTimeout(ctx, *o.joinWait)
			defer cancel()
			urls := roomclient.SplitURLs(*o.relayURL)
			if len(urls) == 0 {
				return nil, fmt.Errorf("--relay %q: no URL", *o.relayURL)
			}
			s, err := rooms.Join(jctx, g, urls[0], *o.code, rooms.JoinOptions{Options: opts, Relays: urls[1:], HostMigration: true})
			if err != nil {
				return nil, fmt.Errorf("cannot join room %s at %s: %w", *o.code, *o.relayURL, err)
			}
			return s, nil
		}
		s, err := rewind.ConnectUDP(ctx, g, *o.addr, rewind.UDPOptions{Options: opts,
			UDP: udp.Config{HandshakeTimeout: *o.timeout, IdleTimeout: *o.timeout}})
		if err != nil {
			return nil, fmt.Errorf("cannot connect to %s: %w", *o.addr, err)
		}
		return s, nil
	}
}

// seated is what play needs of a seat, whichever game it plays.
type seated interface {
	Tick(now time.Time)
	Done() bool
	Err() error
	FinalLine() string
	Status() string
}

// screen is the view the window runs: its Ebitengine game, where its
// OnFrame callback goes, how to stop it, and the window's size.
type screen struct {
	game    ebiten.Game
	onFrame *func(*ebiten.Image)
	stop    func()
	w, h    int
}

// play runs the window until the player is done or the window closes,
// ticking the player from a ticker of its own (not from frames), and
// prints rewind play's last line.
func (o *options) play(ctx context.Context, p seated, v screen) error {
	var shotErr error
	*v.onFrame = func(img *ebiten.Image) {
		if !p.Done() && ctx.Err() == nil {
			return
		}
		if *o.shot != "" {
			shotErr = savePNG(*o.shot, img)
		}
		v.stop()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	tickCtx, stopTicks := context.WithCancel(ctx)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second / time.Duration(*o.rate) / 4)
		defer t.Stop()
		var next time.Time // the next status line's time
		for !p.Done() {
			select {
			case <-tickCtx.Done():
				return
			case now := <-t.C:
				p.Tick(now)
				if *o.status > 0 && !now.Before(next) {
					fmt.Fprintln(os.Stderr, p.Status())
					next = now.Add(*o.status)
				}
			}
		}
	}()
	ebiten.SetWindowTitle(o.title())
	fitWindow(v.w, v.h)
	ebiten.SetRunnableOnUnfocused(true)
	runErr := ebiten.RunGame(v.game)
	stopTicks()
	wg.Wait()
	switch {
	case runErr != nil:
		return runErr
	case shotErr != nil:
		return shotErr
	}
	if err := p.Err(); err != nil {
		return err
	}
	if *o.until != 0 && !p.Done() {
		return fmt.Errorf("the window closed before verified tick %d", *o.until)
	}
	fmt.Println(p.FinalLine())
	return nil
}

// title is the window's title: where it plays, and whether it watches.
func (o *options) title() string {
	title := "rewind: " + *o.addr
	if *o.code != "" {
		title = "rewind: room " + *o.code
	}
	if *o.watch {
		title += " (spectating)"
	}
	return title
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
	g := view.New[games.Input](r.Size())
	g.SetReplay(r, r.Draw)
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
	fitWindow(g.Size())
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

// fitScreen is the screen a window is sized to fit, less room for its
// title bar and a desktop's panel: the window opens as large as fits a
// 1280×800 screen.
const fitScreenW, fitScreenH = 1280 - 40, 800 - 100

// fitWindow opens the window at the view's w×h scaled to fit a 1280×800
// screen (sand's 512×548 at 1.28×: 654×700), resizable: Ebitengine
// scales the view to whatever size it is given, keeping its
// proportions, and the mouse's position is read in the view's pixels.
func fitWindow(w, h int) {
	k := min(float64(fitScreenW)/float64(w), float64(fitScreenH)/float64(h))
	ebiten.SetWindowSize(int(k*float64(w)), int(k*float64(h)))
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
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

// sound returns the window's sound player, or nil (and a line on stderr
// saying why) when muted, built without sound (-tags nosound) or on a
// machine without a sound device.
func sound(mute bool) func(draw.Sound) {
	switch {
	case mute:
		return nil
	case !view.SoundBuilt:
		fmt.Fprintln(os.Stderr, "rewind window: no sound: built with -tags nosound (build without it, with libasound2-dev installed, for sound)")
		return nil
	case !hasSoundDevice():
		fmt.Fprintln(os.Stderr, "rewind window: no sound: no sound device (/dev/snd)")
		return nil
	}
	return view.NewSound()
}

// hasSoundDevice reports whether the machine has an ALSA sound device:
// without one, Ebitengine's audio context fails and ends the game loop.
func hasSoundDevice() bool {
	_, err := os.Stat("/dev/snd")
	return err == nil
}
