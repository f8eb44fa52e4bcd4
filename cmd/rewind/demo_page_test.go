package main

import (
	"strings"
	"testing"
)

// TestDemoPageErrors: without go on PATH the demo serves the prebuilt
// page where it is of these sources (internal/cli/demopage/prebuilt: no
// build, no go needed), else says what is missing (and that --no-page
// runs without the page).
func TestDemoPageErrors(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, stderr := runCmd("demo", "--http", "127.0.0.1:0", "--duration", "3s")
	if strings.Contains(stderr, "serving the prebuilt page") {
		if code != 0 || !strings.Contains(stderr, "the page is ready") {
			t.Errorf("the prebuilt page without go: exit %d, %q", code, stderr)
		}
		return
	}
	if code != 1 || !strings.Contains(stderr, "no `go` on PATH") || !strings.Contains(stderr, "--no-page") {
		t.Errorf("without go: exit %d, %q", code, stderr)
	}
}
