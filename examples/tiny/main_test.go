package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// TestRun: the program plays its second and prints a verified tick past
// the start.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(out.String(), "verified %d\n", &n); err != nil || n < 10 {
		t.Fatalf("output %q: want verified and a tick >= 10", out.String())
	}
}
