package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// Sched is how a benchmark's child processes (its load bots) are
// scheduled against the process measured, which shares the machine with
// them: a niceness above the measured process's, so that the kernel
// runs the measured process first when both want a core, and optionally
// the CPUs they may use (Linux only; elsewhere children run as this
// process does).
type Sched struct {
	// Nice is added to this process's niceness for the children (0:
	// the same; at most 19 in all).
	Nice int
	// CPUs, when not empty, are the only CPUs the children run on.
	CPUs []int
}

// ParseCPUs parses a comma-separated list of CPU numbers ("" is none).
func ParseCPUs(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 0 || c >= 1024 {
			return nil, fmt.Errorf("CPU list %q: want numbers 0..1023, comma-separated", s)
		}
		cpus = append(cpus, c)
	}
	return cpus, nil
}
