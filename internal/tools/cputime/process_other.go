//go:build !unix

package cputime

import "time"

// Process returns this process's CPU time: 0 here (no getrusage).
func Process() time.Duration { return 0 }
