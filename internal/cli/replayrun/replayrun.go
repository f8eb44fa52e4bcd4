// Package replayrun verifies a replay file with the game its header names
// (a registered game, package games: with the match settings the recorder
// wrote, or its settings text): the code behind
// `rewind replay`, shared with the js/wasm verifier (replaycheck) that
// proves a replay recorded natively verifies in a browser's Go too.
package replayrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/games"
	_ "github.com/rewindnet/rewind/games/all" // the built-in games, registered
	"github.com/rewindnet/rewind/replay"
)

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

// Verify verifies the replay in b with the game its header names
// (games.FromReplay).
func Verify(b []byte, opts replay.Options) (replay.Result, error) {
	if !IsReplay(b) {
		return replay.Result{Reason: ErrNotReplay.Error()}, ErrNotReplay
	}
	h, err := Header(b)
	if err != nil {
		return replay.Result{Verified: false, FirstBad: 1, Reason: err.Error()}, err
	}
	_, g, err := games.FromReplay(h)
	if err != nil {
		return replay.Result{Header: h}, err
	}
	return replay.Verify(g, bytes.NewReader(b), opts)
}

// SettingsText is the settings text of a match of e's game played with
// the host's match settings b (the welcome's).
func SettingsText(e *games.Entry, b []byte) (string, error) {
	g, err := e.FromSettings(b)
	if err != nil {
		return "", err
	}
	return e.SettingsText(e.Values(g)), nil
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
