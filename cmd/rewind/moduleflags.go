//go:build !js

package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewindnet/rewind/games/wasmgame"
	"github.com/rewindnet/rewind/module"
)

// hostModuleGame is the game of the host's module (a player given no
// --game joins again as one when the host refuses its default game).
const hostModuleGame = wasmgame.Host

// addModuleFlags adds the limits of a --game PATH.wasm module (package
// module's Config, through games/wasmgame) and the cache of fetched
// modules to fs.
func addModuleFlags(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
	fs.StringVar(&wasmgame.Cache.Dir, "module-cache", defaultModuleCache(), "the directory of the WebAssembly modules fetched from matches, by SHA-256 (empty: keep them in memory only)")
	fs.IntVar(&wasmgame.Config.MaxBytes, "module-max-bytes", module.DefaultMaxBytes, "with --game PATH.wasm: the largest module taken, in bytes")
	fs.IntVar(&wasmgame.Config.MaxMemory, "module-max-memory", module.DefaultMaxMemory, "with --game PATH.wasm: the most linear memory the module may have, in bytes")
	fs.DurationVar(&wasmgame.Config.StepBudget, "module-step-budget", module.DefaultStepBudget, "with --game PATH.wasm: how long one step of the module may run before its match ends with an error naming the module and the tick")
}

// defaultModuleCache is --module-cache's default: rewind/modules in the
// user's cache directory ($XDG_CACHE_HOME, ~/.cache), or none.
func defaultModuleCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "rewind", "modules")
}

// tabGame is the game a demo's tabs play for the host's game name: a
// module file's is the host's module (the tab has no file: it fetches
// the module from the room).
func tabGame(name string) string {
	if strings.HasSuffix(name, ".wasm") {
		return hostModuleGame
	}
	return name
}
