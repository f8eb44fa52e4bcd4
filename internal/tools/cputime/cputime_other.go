//go:build !linux && !(js && wasm)

package cputime

import "time"

func thread() (time.Duration, bool) { return wall() }
