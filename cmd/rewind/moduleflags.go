//go:build !js

package main

import (
	"time"

	"github.com/rewindnet/rewind/games/wasmgame"
	"github.com/rewindnet/rewind/module"
)

// addModuleFlags adds the limits of a --game PATH.wasm module (package
// module's Config, through games/wasmgame) to fs.
func addModuleFlags(fs interface {
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
	fs.IntVar(&wasmgame.Config.MaxBytes, "module-max-bytes", module.DefaultMaxBytes, "with --game PATH.wasm: the largest module taken, in bytes")
	fs.IntVar(&wasmgame.Config.MaxMemory, "module-max-memory", module.DefaultMaxMemory, "with --game PATH.wasm: the most linear memory the module may have, in bytes")
	fs.DurationVar(&wasmgame.Config.StepBudget, "module-step-budget", module.DefaultStepBudget, "with --game PATH.wasm: how long one step of the module may run before its match ends with an error naming the module and the tick")
}
