package testutil

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// Recv receives one datagram on c into buf, waiting on c's Ready; the
// test fails when none comes within 5 seconds or Recv fails otherwise.
func Recv(t testing.TB, c transport.Conn, buf []byte) (int, transport.Addr) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		n, from, err := c.Recv(buf)
		if err == nil {
			return n, from
		}
		if !errors.Is(err, transport.ErrWouldBlock) {
			t.Fatal(err)
		}
		select {
		case <-c.Ready():
		case <-deadline:
			t.Fatalf("%s: no datagram", c.LocalAddr())
		}
	}
}
