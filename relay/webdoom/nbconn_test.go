package webdoom

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// nbPair returns an nbConn over the server side of a loopback TCP
// connection with a small send buffer, and the client side, which reads
// nothing until the test reads it. (The client's receive buffer keeps its
// size: one far under loopback's 64 KiB segments would leave the sender
// to zero-window probes, seconds apart, once the client reads.)
func nbPair(t *testing.T, max int) (*nbConn, net.Conn) {
	t.Helper()
	testutil.SkipSockets(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	server.(*net.TCPConn).SetWriteBuffer(4096)
	nb := newNBConn(server, max)
	if nb.raw == nil {
		t.Skip("no raw writes on this platform")
	}
	return nb, client
}

// TestNBConnBacklog: writes to a peer that reads nothing all return at
// once (what the kernel does not take waits in the backlog), and the peer
// then reads every byte in order; wait returns once the backlog is out.
func TestNBConnBacklog(t *testing.T) {
	nb, client := nbPair(t, 4<<20)
	var want []byte
	for i := 0; i < 2048; i++ { // 2 MiB: far more than the two socket buffers
		p := bytes.Repeat([]byte{byte(i)}, 1024)
		want = append(want, p...)
		if n, err := nb.Write(p); n != len(p) || err != nil {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	nb.mu.Lock()
	flushing, backlog := nb.flushing, len(nb.backlog)
	nb.mu.Unlock()
	if !flushing {
		t.Fatalf("all 2 MiB went to the kernel at once (backlog %d): the test's buffers are too big to show the backlog", backlog)
	}
	got := make([]byte, len(want))
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(client, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bytes out of order")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := nb.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := nb.Write([]byte("after")); n != 5 || err != nil {
		t.Fatalf("write after the flush: %d, %v", n, err)
	}
}

// TestNBConnSlowConsumer: a backlog past its bound fails the write with
// errSlowConsumer, and every write after it.
func TestNBConnSlowConsumer(t *testing.T) {
	nb, _ := nbPair(t, 8<<10)
	p := make([]byte, 1024)
	var err error
	for i := 0; i < 4096 && err == nil; i++ {
		_, err = nb.Write(p)
	}
	if !errors.Is(err, errSlowConsumer) {
		t.Fatalf("4 MiB to a peer that reads nothing, 8 KiB bound: %v", err)
	}
	if _, err := nb.Write(p); !errors.Is(err, errSlowConsumer) {
		t.Fatalf("next write: %v", err)
	}
}
