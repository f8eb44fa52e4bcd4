// Package replayrun verifies a replay file with the game its header names
// (sand, walkers, cards or ships, with the match settings the recorder wrote, or
// its settings text): the code behind
// `rewind replay`, shared with the js/wasm verifier (replaycheck) that
// proves a replay recorded natively verifies in a browser's Go too.
package replayrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/replay"
)

// Settings returns the settings text a recorder writes for game (sand's
// grid side, the tick rate).
func Settings(game string, grid, tickRate int) string {
	if game == "walkers" || game == "ships" {
		return "tick-rate=" + strconv.Itoa(tickRate)
	}
	return "grid=" + strconv.Itoa(grid) + " tick-rate=" + strconv.Itoa(tickRate)
}

// parseSettings reads Settings' text.
func parseSettings(s string) (grid, rate int, err error) {
	grid, rate = 256, rewind.DefaultTickRate
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, 0, fmt.Errorf("replay settings %q: %v", kv, err)
		}
		switch k {
		case "grid":
			grid = n
		case "tick-rate":
			rate = n
		}
	}
	if grid < 8 || grid > 4096 || rate < 1 || rate > 1000 {
		return 0, 0, fmt.Errorf("replay settings %q out of range", s)
	}
	return grid, rate, nil
}

// ErrNotReplay indicates bytes that do not begin as a replay file does
// (its magic, "RWREPLAY"): an empty file, another kind of file.
var ErrNotReplay = errors.New("not a replay file (replays begin with RWREPLAY: serve --record DIR and play --record FILE write them)")

// IsReplay reports whether b begins as a replay file does (its magic).
func IsReplay(b []byte) bool {
	return bytes.HasPrefix(b, []byte("RWREPLAY"))
}

// Header reads the header of the replay in b (replay.ReadHeader).
func Header(b []byte) (codec.ReplayHeader, error) {
	return replay.ReadHeader(bytes.NewReader(b))
}

// Sand returns the sand game a replay of sand was recorded with, twice
// (as the game and as the sand game, for its Cells and Avatars):
// sand.FromReplay.
func Sand(h codec.ReplayHeader) (rewind.Game[sand.Input], *sand.Game, error) {
	sg, err := sand.FromReplay(h)
	if err != nil {
		return nil, nil, err
	}
	return sg, sg, nil
}

// Verify verifies the replay in b with the game its header names.
func Verify(b []byte, opts replay.Options) (replay.Result, error) {
	if !IsReplay(b) {
		return replay.Result{Reason: ErrNotReplay.Error()}, ErrNotReplay
	}
	h, err := Header(b)
	if err != nil {
		return replay.Result{Verified: false, FirstBad: 1, Reason: err.Error()}, err
	}
	_, rate, err := parseSettings(h.Settings)
	if err != nil {
		return replay.Result{Header: h}, err
	}
	switch h.Game {
	case "sand":
		g, _, err := Sand(h)
		if err != nil {
			return replay.Result{Header: h}, err
		}
		return replay.Verify(g, bytes.NewReader(b), opts)
	case "cards":
		if rate != rewind.DefaultTickRate {
			return replay.Result{Header: h}, fmt.Errorf("replay of cards at %d Hz: this build replays cards at %d Hz", rate, rewind.DefaultTickRate)
		}
		return replay.Verify[cards.Input](cards.New(), bytes.NewReader(b), opts)
	case "walkers":
		var g rewind.Game[walkers.Input] = walkers.New()
		if rate != rewind.DefaultTickRate {
			g = walkers.Rated{Game: walkers.New(), Rate: rate}
		}
		return replay.Verify(g, bytes.NewReader(b), opts)
	case "ships":
		var g rewind.Game[ships.Input] = ships.New()
		if rate != rewind.DefaultTickRate {
			g = ships.Rated{Game: ships.New(), Rate: rate}
		}
		return replay.Verify(g, bytes.NewReader(b), opts)
	}
	return replay.Result{Header: h}, fmt.Errorf("replay of game %q: this build knows sand, walkers, cards and ships", h.Game)
}

// VerifyFile is Verify on the file at path.
func VerifyFile(path string, opts replay.Options) (replay.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return replay.Result{}, err
	}
	return Verify(b, opts)
}

// Line returns the result's last line: "replay_ticks=N verified=true|false
// first_bad_tick=K truncated=true|false", then reason="…" (quoted) when
// the replay did not verify or was cut. A truncated replay is not
// verified here (verified=false truncated=true), though every tick it
// holds may have hashed as recorded (Result.Verified): the file is not the
// whole match.
func Line(r replay.Result) string {
	ok := r.Verified && !r.Truncated
	line := fmt.Sprintf("replay_ticks=%d verified=%t first_bad_tick=%d truncated=%t", r.Ticks, ok, r.FirstBad, r.Truncated)
	if !ok && r.Reason != "" {
		line += " reason=" + strconv.Quote(r.Reason)
	}
	return line
}
