package udp

import "net/netip"

// udpReadBatch is how many datagrams a udpReader takes from the socket in
// one system call at most (recvmmsg on Linux): as many as a batch of
// sends (udpBatchLen).
const udpReadBatch = udpBatchLen

// udpReadBufLen is the size of each of a udpReader's buffers: larger than
// any valid frame (udpMaxFrame), so that an oversized datagram shows as
// one (it is truncated to this and then refused as malformed).
const udpReadBufLen = 2048

// udpClientReadBatch is how many datagrams a client's udpReader takes in
// one system call at most: a client hears one server, about a datagram
// a tick, more during a world transfer; 8 buffers (16 KiB) rather than a
// server's 64 (128 KiB) keep a process of many bots small.
const udpClientReadBatch = 8

// udpReader reads a UDP socket's datagrams in batches: up to its batch
// (at most udpReadBatch) per system call where the platform has
// recvmmsg(2) (udp_read_linux.go), one per call elsewhere (and on Linux
// if recvmmsg is missing). Its buffers and source addresses are allocated
// once by newUDPReader, so that reading allocates nothing per datagram.
// One goroutine uses it.
type udpReader struct {
	conn  udpSocket
	batch int    // datagrams per read at most, 1 to udpReadBatch
	bufs  []byte // batch buffers of udpReadBufLen bytes, end to end
	n     [udpReadBatch]int
	from  [udpReadBatch]netip.AddrPort
	// at is each datagram's arrival as the kernel stamped it (unix
	// nanoseconds, SO_TIMESTAMPNS: a drained socket's), 0 if it did not.
	at  [udpReadBatch]int64
	sys udpReadSys // the platform's part
}

// newUDPReader returns a reader of conn taking up to batch datagrams per
// read (clamped to 1..udpReadBatch).
func newUDPReader(conn udpSocket, batch int) *udpReader {
	batch = min(max(batch, 1), udpReadBatch)
	r := &udpReader{conn: conn, batch: batch, bufs: make([]byte, batch*udpReadBufLen)}
	r.sys.init(r)
	return r
}

// read waits for at least one datagram and reads up to the reader's
// batch of those waiting, returning how many; datagram(i) is each. An error is the
// socket's (net.ErrClosed once it is closed) and reads none.
func (r *udpReader) read() (int, error) {
	if n, ok, err := r.sys.read(r); ok {
		return n, err
	}
	return r.readOne()
}

// readOne reads a single datagram: the fallback without recvmmsg.
func (r *udpReader) readOne() (int, error) {
	n, from, err := r.conn.ReadFromUDPAddrPort(r.buf(0))
	if err != nil {
		return 0, err
	}
	r.n[0], r.from[0], r.at[0] = n, from, 0
	return 1, nil
}

// buf is the i-th buffer, whole.
func (r *udpReader) buf(i int) []byte {
	return r.bufs[i*udpReadBufLen : (i+1)*udpReadBufLen : (i+1)*udpReadBufLen]
}

// datagram returns the i-th datagram of the last read and its source
// (an IPv4 peer of a dual-stack socket as an IPv4-mapped IPv6 address, as
// the socket reports it). The bytes stay valid until the next read.
func (r *udpReader) datagram(i int) ([]byte, netip.AddrPort) {
	return r.buf(i)[:r.n[i]], r.from[i]
}

// countRead counts a read of n datagrams by r: the datagrams, their
// bytes and the read.
func (c *udpCounters) countRead(r *udpReader, n int) {
	var bytes uint64
	for _, l := range r.n[:n] {
		bytes += uint64(l)
	}
	c.datagramsIn.Add(uint64(n))
	c.bytesIn.Add(bytes)
	c.reads.Add(1)
}
