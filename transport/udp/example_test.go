package udp_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// recvOne waits on Ready for one datagram.
func recvOne(c transport.Conn, buf []byte) (int, transport.Addr) {
	for {
		n, from, err := c.Recv(buf)
		if err == nil {
			return n, from
		}
		if !errors.Is(err, transport.ErrWouldBlock) {
			log.Fatal(err)
		}
		<-c.Ready()
	}
}

// A UDP server on a free loopback port and a client that dials it: Dial
// returns once the retry-token handshake is done.
func ExampleListen() {
	server, err := udp.Listen("127.0.0.1:0", udp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	client, err := udp.Dial(server.UDPAddr().String(), udp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	buf := make([]byte, transport.MaxDatagram)
	client.Send(client.RemoteAddr(), []byte("join"))
	n, peer := recvOne(server, buf)
	fmt.Printf("server got %q; sessions: %d\n", buf[:n], server.Sessions())
	server.Send(peer, []byte("welcome aboard"))
	n, _ = recvOne(client, buf)
	fmt.Printf("client got %q\n", buf[:n])
	// Output:
	// server got "join"; sessions: 1
	// client got "welcome aboard"
}
