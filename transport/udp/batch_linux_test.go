package udp

import (
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestUDPBatchOneByOne runs TestUDPBatch's check on Linux as on a kernel
// without sendmmsg (a system call number the kernel does not have:
// ENOSYS): the batch falls back to one write per datagram, every one
// still arriving, in order.
func TestUDPBatchOneByOne(t *testing.T) {
	old := sysSendmmsg
	sysSendmmsg = 1 << 20
	defer func() { sysSendmmsg = old }()
	udpBatchCheck(t)
}

// TestUDPBatchSendmmsg: on Linux a batch sends with sendmmsg, and keeps
// doing so after a flush that worked.
func TestUDPBatchSendmmsg(t *testing.T) {
	testutil.SkipSockets(t)
	s, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := Dial(s.UDPAddr().String(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send(c.RemoteAddr(), []byte("hi")); err != nil {
		t.Fatal(err)
	}
	_, peer := udpRecvWait(t, s)
	b := s.NewBatch()
	if b.(*udpBatch).sys.raw == nil {
		t.Fatal("no sendmmsg on Linux")
	}
	for i := range 3 {
		if err := b.Send(peer, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if got, _ := udpRecvWait(t, c); len(got) != 1 || got[0] != byte(i) {
			t.Fatalf("datagram %d: %v", i, got)
		}
	}
	if b.(*udpBatch).sys.raw == nil || s.Stats().SendErrors != 0 {
		t.Fatalf("sendmmsg given up (send errors %d)", s.Stats().SendErrors)
	}
}
