// Package bench holds what the benchmarks of `rewind-bench` (each a
// package under internal/tools/bench) share: the failure that still has a
// result to print, and the child processes some benchmarks run.
package bench

// Failure is the error of a benchmark that ran to its end and whose
// figures fail its check: its Result is complete, and the command
// prints it before it exits non-zero.
type Failure struct{ Err error }

// Error returns the failure's message.
func (f Failure) Error() string { return f.Err.Error() }

// Unwrap returns the failure's cause.
func (f Failure) Unwrap() error { return f.Err }
