package transport

// Batcher is implemented by a server-side Conn that can send many
// datagrams with one system call (udp.Server: sendmmsg where the platform
// has it). A host that runs several matches on one Conn gives each of its
// worker goroutines a Batch.
type Batcher interface {
	// NewBatch returns a Batch of the Conn, for one goroutine's use.
	NewBatch() Batch
}

// Batch collects datagrams and sends them together on Flush. A Batch is
// not safe for concurrent use; different Batches of one Conn are, beside
// each other and beside the Conn's own Send.
type Batch interface {
	// Send queues p for to, with the errors of the Conn's Send (closed,
	// too large, unknown peer); a full batch is flushed first. p may be
	// reused once Send returns.
	Send(to Addr, p []byte) error
	// Flush sends every queued datagram. A datagram the socket would not
	// take is counted (udp.Stats.SendErrors, say) and dropped, as by Send.
	Flush() error
}
