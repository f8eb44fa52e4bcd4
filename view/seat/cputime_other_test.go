//go:build !linux

package seat

import "time"

// cpuClock names what cpuNow measures.
const cpuClock = "wall time"

var cpuStart = time.Now()

// cpuNow returns the wall time since the test binary started: js/wasm
// runs on one thread and has no CPU clock of its own.
func cpuNow() time.Duration { return time.Since(cpuStart) }
