//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns this process's CPU time, user and system, every thread
// (getrusage RUSAGE_SELF); 0 where the system cannot say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
