package transport_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// One server Conn over two networks (say UDP and WebRTC): two clients with
// the same address on their own networks stay apart, and replies find them.
func ExampleNewMulti() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := transport.NewSimNetwork(1, start), transport.NewSimNetwork(2, start)
	sa, _ := a.Listen("server")
	sb, _ := b.Listen("server")
	server, err := transport.NewMulti(sa, sb)
	if err != nil {
		panic(err)
	}
	defer server.Close()
	ca, _ := a.Dial("p", "server")
	cb, _ := b.Dial("p", "server")
	ca.Send(ca.RemoteAddr(), []byte("hi from a"))
	cb.Send(cb.RemoteAddr(), []byte("hi from b"))

	buf := make([]byte, transport.MaxDatagram)
	for {
		n, from, err := server.Recv(buf)
		if errors.Is(err, transport.ErrWouldBlock) {
			break
		}
		fmt.Printf("%q from %s\n", buf[:n], from)
		server.Send(from, append([]byte("welcome "), from...))
	}
	n, _, _ := cb.Recv(buf)
	fmt.Printf("b's client got %q\n", buf[:n])
	// Output:
	// "hi from a" from 0/sim:p
	// "hi from b" from 1/sim:p
	// b's client got "welcome 1/sim:p"
}
