package main

import "time"

// hostModuleGame is empty in js/wasm: no game of the host's module.
const hostModuleGame = ""

// addModuleFlags adds nothing in js/wasm: modules run on the browser's
// engine there, not through package games/wasmgame.
func addModuleFlags(interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
}

// tabGame is name in js/wasm (no modules through games/wasmgame).
func tabGame(name string) string { return name }
