package demopage

import "errors"

// errNoGo and errNoSource say what the first-run build lacks.
var (
	errNoGo     = errors.New("the browser page is built on the demo's first run with the Go toolchain, and there is no `go` on PATH (install Go, or run with --no-page for the relay and the room without the page)")
	errNoSource = errors.New("the browser page is built from rewind's source tree, and it was not found: run rewind demo from a clone of rewind (the directory with go.mod and view/go.mod, e.g. `go run ./cmd/rewind demo`), or run with --no-page")
)
