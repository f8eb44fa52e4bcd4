// Package cputime reads the CPU time of the calling OS thread, so that
// benchmarks on a shared, loaded machine can report what a piece of code
// cost in CPU rather than how long it waited for a core. Lock the
// goroutine to its thread (runtime.LockOSThread) around a measurement.
package cputime

import "time"

// Thread returns the CPU time the calling thread has used, and whether the
// platform could tell (elsewhere it returns the wall clock's monotonic
// reading and false).
func Thread() (time.Duration, bool) { return thread() }

var start = time.Now()

func wall() (time.Duration, bool) { return time.Since(start), false }
