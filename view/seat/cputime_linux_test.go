package seat

import (
	"syscall"
	"time"
)

// cpuClock names what cpuNow measures.
const cpuClock = "thread CPU time"

// cpuNow returns the calling thread's CPU time (RUSAGE_THREAD): the
// benchmark locks its goroutine to one thread, so that a machine under
// load does not count the time others ran.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
