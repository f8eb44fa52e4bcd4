package udp

import "testing"

// TestUDPReaderOneByOne runs TestUDPReader's check on Linux as on a
// kernel without recvmmsg (a system call number the kernel does not
// have: ENOSYS): the reader falls back to one datagram per read, still
// every one with its source.
func TestUDPReaderOneByOne(t *testing.T) {
	old := sysRecvmmsg
	sysRecvmmsg = 1 << 20
	defer func() { sysRecvmmsg = old }()
	for _, tc := range []struct{ listen, dial string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"0.0.0.0:0", "127.0.0.1"},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			conn := udpReaderListen(t, tc.listen)
			r := newUDPReader(conn, udpReadBatch)
			if most := udpReaderCheck(t, conn, r, tc.dial, 3, 30); most != 1 {
				t.Errorf("a read returned %d datagrams without recvmmsg", most)
			}
			if r.sys.raw != nil {
				t.Error("the reader still tries recvmmsg after ENOSYS")
			}
		})
	}
}
