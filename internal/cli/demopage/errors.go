package demopage

import "errors"

// errNoGo and errNoSource say what the first-run build lacks.
var (
	errNoGo     = errors.New("the browser page is built on the demo's first run with the Go toolchain, and there is no `go` on PATH (install Go, or run with --no-page for the relay and the room without the page)")
	errNoSource = errors.New("the browser page is built from rewind's source tree, and it was not found: run rewind demo from a clone of rewind (the directory with go.mod and view/go.mod, e.g. `go run ./cmd/rewind demo`), or run with --no-page")
)

// ErrStale indicates that the prebuilt page (prebuilt/) is not of the
// sources at hand: `go generate ./internal/cli/demopage` makes it
// current. The demo then builds the page instead of serving it.
var ErrStale = errors.New("the prebuilt page is stale (go generate ./internal/cli/demopage makes it current)")

// ErrOtherGo indicates that the prebuilt page was built by another Go
// version than the one at hand, so a build now cannot reproduce its
// bytes.
var ErrOtherGo = errors.New("the prebuilt page was built by another Go version")
