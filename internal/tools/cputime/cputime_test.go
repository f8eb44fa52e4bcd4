package cputime

import (
	"runtime"
	"testing"
)

func TestThreadAdvances(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := Thread()
	x := 0
	for i := range 20_000_000 {
		x += i ^ x>>3
	}
	b, _ := Thread()
	if b <= a {
		t.Fatalf("thread CPU time did not advance: %v then %v (ok=%v, x=%d)", a, b, ok, x)
	}
}
