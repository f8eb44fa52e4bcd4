//go:build !unix

package main

import "time"

// selfCPU is 0 where getrusage is missing: bench fleet's CPU figures are
// then meaningless (it says so by printing zeros).
func selfCPU() time.Duration { return 0 }
