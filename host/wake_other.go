//go:build !linux

package host

import "time"

// fineSleep is nil where a sleep finer than the Go runtime's timers is
// not at hand: the leading worker's timer waits the whole wait.
var fineSleep func(time.Duration)
