package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestServeUDPBuffers runs serve with --udp-read-buffer and
// --udp-write-buffer, one match and then --rooms 2: the log says what
// the socket got (on Linux twice what was asked, 64 KiB being under any
// cap), and a warning when the kernel's cap cut the size; a negative
// size is a usage error.
func TestServeUDPBuffers(t *testing.T) {
	testutil.SkipSockets(t)
	for _, extra := range [][]string{nil, {"--rooms", "2"}} {
		args := append([]string{"serve", "--game", "sand", "--grid", "64", "--udp", "127.0.0.1:0",
			"--udp-read-buffer", "65536", "--udp-write-buffer", "32768", "--duration", "200ms", "--status", "0"}, extra...)
		code, stdout, stderr := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		if !strings.HasPrefix(stdout, "udp=127.0.0.1:") {
			t.Errorf("%v: stdout %q", extra, stdout)
		}
		if runtime.GOOS == "windows" {
			continue
		}
		var line string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, `msg="udp socket buffers"`) {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("%v: no udp socket buffers line in %s", extra, stderr)
		}
		m := kv(line)
		if m["read_buffer_asked"] != "65536" || m["write_buffer_asked"] != "32768" {
			t.Errorf("%v: %s", extra, line)
		}
		if runtime.GOOS == "linux" && (m["read_buffer"] != "131072" || m["write_buffer"] != "65536") {
			t.Errorf("%v: %s: Linux grants twice what was asked", extra, line)
		}
	}
	if runtime.GOOS == "linux" {
		// 1 GiB is over any net.core.rmem_max: the kernel caps it, and
		// the line says so.
		code, _, stderr := runCmd("serve", "--game", "sand", "--grid", "64", "--udp", "127.0.0.1:0",
			"--udp-read-buffer", "1073741824", "--duration", "100ms", "--status", "0")
		if code != 0 || !strings.Contains(stderr, `level=WARN msg="udp socket buffers capped by the kernel`) ||
			!strings.Contains(stderr, "read_buffer_asked=1073741824") {
			t.Errorf("a buffer over the cap: exit %d: %s", code, stderr)
		}
	}
	if code, _, stderr := runCmd("serve", "--udp", "127.0.0.1:0", "--udp-read-buffer", "-1"); code != 2 || !strings.Contains(stderr, "must not be negative") {
		t.Errorf("a negative buffer: exit %d: %s", code, stderr)
	}
}
