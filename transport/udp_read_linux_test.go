package transport

import "testing"

// TestUDPReaderOneByOne runs TestUDPReader's check on Linux with recvmmsg
// turned off, as where it is missing (ENOSYS): one datagram per read,
// still every one with its source.
func TestUDPReaderOneByOne(t *testing.T) {
	for _, tc := range []struct{ listen, dial string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"0.0.0.0:0", "127.0.0.1"},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			conn := udpReaderListen(t, tc.listen)
			r := newUDPReader(conn)
			r.sys.raw = nil
			if most := udpReaderCheck(t, conn, r, tc.dial, 3, 30); most != 1 {
				t.Errorf("a read returned %d datagrams without recvmmsg", most)
			}
		})
	}
}
