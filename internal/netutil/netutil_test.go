package netutil

import "testing"

// TestFirstIPv4 checks the contract: always a 4-byte IPv4 address, and
// loopback only as the fallback 127.0.0.1.
func TestFirstIPv4(t *testing.T) {
	ip := FirstIPv4()
	if ip.To4() == nil {
		t.Fatalf("FirstIPv4() = %v, not an IPv4 address", ip)
	}
	if ip.IsLoopback() && !ip.Equal([]byte{127, 0, 0, 1}) {
		t.Fatalf("FirstIPv4() = %v: a loopback address other than the fallback", ip)
	}
}
