package host

import (
	"time"

	"golang.org/x/sys/unix"
)

// fineSleep sleeps for d with nanosleep(2): a high-resolution timer of
// the kernel, late by its slack (50 µs by default) and the wait for a
// core, not by the Go runtime's whole milliseconds. The thread blocks
// meanwhile (the runtime hands its P to another thread if there is work).
func fineSleep(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
