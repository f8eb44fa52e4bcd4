package udp

import (
	"github.com/rewindnet/rewind/transport"
)

// clientSock is a Client's socket once its handshake is done: the
// connected *net.UDPConn, or with Config.Drained (Linux) the same socket
// outside the Go runtime's poller (a drainSock).
type clientSock interface {
	Write(b []byte) (int, error)
	udpSocket
}

var _ transport.Drainer = (*Client)(nil)

// startReading starts reading the socket once the handshake is done: the
// reader goroutine, or with Config.Drained (where the platform has it)
// nothing: Drain reads.
func (c *Client) startReading() error {
	c.sock = c.conn
	if !c.cfg.Drained {
		go c.readLoop()
		return nil
	}
	sock, err := newDrainSock(c.conn)
	if err != nil {
		c.conn.Close()
		close(c.done)
		return err
	}
	if sock == nil { // not on this platform
		go c.readLoop()
		return nil
	}
	c.sock = sock.(clientSock)
	c.drain = newUDPReader(sock, udpClientReadBatch)
	close(c.done) // no reader goroutine to wait for
	return nil
}

// Draining implements transport.Drainer: whether the socket waits for
// Drain (Config.Drained, on Linux).
func (c *Client) Draining() bool { return c.drain != nil }

// Drain implements transport.Drainer: it reads the datagrams waiting in
// the socket, without waiting for more, up to Config.QueueLen, and
// queues them for Recv (a BYE ends the session, as read by the reader
// goroutine). It returns how many it read: 0 without Config.Drained.
// Call it from the goroutine that calls Recv and Send.
func (c *Client) Drain() int {
	r := c.drain
	if r == nil || c.closed.Load() {
		return 0
	}
	total := 0
	for total < c.cfg.QueueLen {
		n, err := r.read()
		if err != nil || n == 0 {
			break // nothing waiting, an ICMP error (the idle timeout decides), or closed
		}
		c.take(r, n)
		total += n
		if n < r.batch {
			break // the socket had no more
		}
	}
	return total
}
