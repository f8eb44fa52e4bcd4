package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/cli/replayrun"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/world"
)

func init() {
	register("replay", "simulate a replay file again and check every tick's hash (exit 1: it did not verify or was cut; 2: not a replay): rewind replay FILE [--until-tick T] [--speed X]", runReplay)
}

// errNotVerified is replay's error for a replay that did not verify or
// was cut (exit status 1, after its last line).
var errNotVerified = errors.New("the replay did not verify")

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "rewind replay FILE [--until-tick T] [--speed X]", stderr)
	until := fs.Uint("until-tick", 0, "stop after this tick (0: the whole replay)")
	speed := fs.Float64("speed", 0, "play at this multiple of the recorded tick rate (0: as fast as the machine goes)")
	var lf logFlags
	lf.add(fs)
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) != 1:
		return usageError{Err: errors.New("want one replay file: rewind replay FILE")}
	case *until > 1<<31:
		return usageError{Err: fmt.Errorf("--until-tick %d: too large", *until)}
	case *speed < 0:
		return usageError{Err: fmt.Errorf("--speed %v: must not be negative", *speed)}
	}
	log, err := lf.logger(stderr)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	if !replayrun.IsReplay(b) {
		// Exit status 2: the file is not something this command verifies.
		return troubleError{fmt.Errorf("%s: %w", files[0], replayrun.ErrNotReplay)}
	}
	opts := replay.Options{UntilTick: uint32(*until)}
	if *speed > 0 {
		opts.OnTick = pacer(b, *speed)
	}
	res, err := replayrun.Verify(b, opts)
	if err != nil {
		log.Error("replay", "file", files[0], "err", err)
	}
	h := res.Header
	log.Info("replay", "file", files[0], "game", h.Game, "settings", h.Settings, "recorder", recorderName(h.Recorder),
		"last_tick", res.LastTick, "keyframes", res.Keyframes, "truncated", res.Truncated, "reason", res.Reason)
	fmt.Fprintln(stdout, replayrun.Line(res))
	if err != nil {
		return err
	}
	return replayVerdict(res)
}

// replayVerdict is replay's error for a result: nil when verified, else
// errNotVerified saying at which tick and why (a cut file included).
func replayVerdict(res replay.Result) error {
	switch {
	case !res.Verified:
		return fmt.Errorf("%w at tick %d: %s", errNotVerified, res.FirstBad, res.Reason)
	case res.Truncated:
		return fmt.Errorf("%w: it holds ticks to %d only: %s", errNotVerified, res.LastTick, res.Reason)
	}
	return nil
}

func recorderName(r uint8) string {
	if r == codec.RecordedByServer {
		return "server"
	}
	return "client"
}

// pacer returns an OnTick that holds the replay to speed × its tick rate.
func pacer(b []byte, speed float64) func(uint32, *world.World) error {
	h, _ := replayrun.Header(b)
	dt := time.Duration(float64(time.Second) / float64(max(h.TickRate, 1)) / speed)
	var start time.Time
	var n int64
	return func(uint32, *world.World) error {
		if start.IsZero() {
			start = time.Now()
		}
		n++
		if d := time.Until(start.Add(time.Duration(n) * dt)); d > 0 {
			time.Sleep(d)
		}
		return nil
	}
}

// recordFlags are serve's --record DIR and play's --record FILE.
type recordFlags struct {
	path string
}

// add declares --record on fs with its usage.
func (r *recordFlags) add(fs *flag.FlagSet, usage string) {
	fs.StringVar(&r.path, "record", "", usage)
}

// replaySeq numbers the replays of one process, after their start time.
var replaySeq atomic.Uint64

// recorder returns play's recorder for gf's game, writing the file
// r.path (created at the first tick the player verifies, its path
// logged); nil when --record is not set.
func (r *recordFlags) recorder(gf *gameFlags, log *slog.Logger) *replay.Recorder {
	if r.path == "" {
		return nil
	}
	return newReplayRecorder(gf, log, func(time.Time) string { return r.path })
}

// perMatch returns serve's recorder maker: each match gets a recorder of
// its own writing a file in the directory r.path named by the match's
// start, so that names sort in start order (match-20260102T150405.000Z-0001.rwreplay;
// the sequence number orders matches started in one millisecond), created
// at the match's first tick, its path logged. The server closes it when
// the match ends. nil when --record is not set.
func (r *recordFlags) perMatch(gf *gameFlags, log *slog.Logger) (func() replay.Sink, error) {
	if r.path == "" {
		return nil, nil
	}
	if err := os.MkdirAll(r.path, 0o755); err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return func() replay.Sink {
		return newReplayRecorder(gf, log, func(now time.Time) string {
			return filepath.Join(r.path, fmt.Sprintf("match-%s-%04d.rwreplay", now.Format("20060102T150405.000Z"), replaySeq.Add(1)))
		})
	}, nil
}

// newReplayRecorder returns a recorder of gf's game creating the file
// pathAt names at the recording's start.
func newReplayRecorder(gf *gameFlags, log *slog.Logger, pathAt func(now time.Time) string) *replay.Recorder {
	rec := &replay.Recorder{Game: gf.name, Settings: gf.settingsText()}
	rec.Open = func(h codec.ReplayHeader) (io.Writer, error) {
		if len(h.MatchSettings) > 0 {
			// The match's own settings (a player that took the host's):
			// the text says them too, not this command's flags.
			if text, err := replayrun.SettingsText(gf.entry, h.MatchSettings); err == nil {
				rec.Settings = text
			}
		}
		now := time.Now().UTC()
		rec.Started = uint64(now.UnixMilli())
		path := pathAt(now)
		f, err := os.Create(path)
		if err != nil {
			log.Error("record", "path", path, "err", err)
			return nil, err
		}
		log.Info("recording", "replay", path)
		return f, nil
	}
	return rec
}

// closeRecorder writes a recorder's last ticks and closes its file,
// logging an error.
func closeRecorder(rec *replay.Recorder, log *slog.Logger) {
	if err := rec.Close(); err != nil {
		log.Error("record", "err", err)
		return
	}
	log.Info("recorded", "ticks", rec.Ticks(), "bytes", rec.Written())
}
