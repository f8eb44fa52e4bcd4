package udp

import (
	"runtime"
	"testing"
)

// TestUDPSocketBuffers sets the socket's buffers (Config.ReadBuffer,
// WriteBuffer) and reads back what the kernel reports: on Linux twice
// what was asked (64 KiB is under any net.core.rmem_max and wmem_max);
// without a setting, the system's default.
func TestUDPSocketBuffers(t *testing.T) {
	const asked = 64 << 10
	s := udpListenTest(t, Config{ReadBuffer: asked, WriteBuffer: asked})
	read, write, ok := s.SocketBuffers()
	if runtime.GOOS == "windows" {
		if ok {
			t.Errorf("SocketBuffers on Windows: %d, %d, ok", read, write)
		}
		return
	}
	if !ok || read < asked || write < asked {
		t.Fatalf("SocketBuffers: read %d, write %d, ok %v; asked %d each", read, write, ok, asked)
	}
	if runtime.GOOS == "linux" && (read != 2*asked || write != 2*asked) {
		t.Errorf("SocketBuffers: read %d, write %d; Linux reports twice the %d asked", read, write, asked)
	}
	d := udpListenTest(t, Config{})
	if dr, _, ok := d.SocketBuffers(); !ok || dr <= 0 {
		t.Errorf("SocketBuffers by default: read %d, ok %v", dr, ok)
	}
}
