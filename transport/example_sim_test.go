package transport_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// A server and a client on a simulated network with 40 ms one-way latency.
// The driver steps made-up time; nothing sleeps.
func ExampleSimNetwork() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(42, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 40 * time.Millisecond})
	server, _ := net.Listen("server")
	client, _ := net.Dial("p1", "server")

	client.Send(client.RemoteAddr(), []byte("ping"))
	buf := make([]byte, transport.MaxDatagram)
	for now := start; now.Before(start.Add(200 * time.Millisecond)); now = now.Add(time.Millisecond) {
		net.Advance(now)
		for { // the server answers every datagram
			n, from, err := server.Recv(buf)
			if errors.Is(err, transport.ErrWouldBlock) {
				break
			}
			fmt.Printf("%v server got %q from %s\n", now.Sub(start), buf[:n], from)
			server.Send(from, []byte("pong"))
		}
		for {
			n, from, err := client.Recv(buf)
			if errors.Is(err, transport.ErrWouldBlock) {
				break
			}
			fmt.Printf("%v client got %q from %s\n", now.Sub(start), buf[:n], from)
		}
	}
	st := client.Stats()
	fmt.Println("client sent", st.SentDatagrams, "received", st.ReceivedDatagrams)
	// Output:
	// 40ms server got "ping" from sim:p1
	// 80ms client got "pong" from sim:server
	// client sent 1 received 1
}

// A driver can jump the clock from delivery to delivery instead of
// stepping it, here over a lossy, jittery link.
func ExampleSimNetwork_NextDelivery() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(7, start)
	net.SetDefaultLink(transport.LinkConfig{
		Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.25,
	})
	server, _ := net.Listen("server")
	client, _ := net.Dial("p1", "server")
	for i := range 8 {
		client.Send(client.RemoteAddr(), []byte{byte(i)})
	}
	got := 0
	for {
		at, ok := net.NextDelivery()
		if !ok {
			break
		}
		net.Advance(at)
		for {
			if _, _, err := server.Recv(make([]byte, 1)); err != nil {
				break
			}
			got++
		}
	}
	st := client.Stats()
	fmt.Println("sent", st.SentDatagrams, "lost", st.Lost, "received", got)
	fmt.Println(st.Lost+uint64(got) == st.SentDatagrams)
	// Output:
	// sent 8 lost 3 received 5
	// true
}

// Single-player: the loopback delivers during Send, in real time.
func ExampleNewLoopback() {
	lb := transport.NewLoopback()
	server, _ := lb.Listen("server")
	client, _ := lb.Dial("me", "server")
	client.Send(client.RemoteAddr(), []byte("input"))
	<-server.Ready()
	buf := make([]byte, 64)
	n, from, _ := server.Recv(buf)
	fmt.Printf("%q from %s\n", buf[:n], from)
	// Output: "input" from sim:me
}
