package main

import "time"

// addModuleFlags adds nothing in js/wasm: modules run on the browser's
// engine there, not through package games/wasmgame.
func addModuleFlags(interface {
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
}
