//go:build !linux

package udp

// udpBatchSys, where sendmmsg is not used (not Linux, js/wasm): one write
// per datagram, the batch only saving the frames' buffers.
type udpBatchSys struct{}

func (y *udpBatchSys) init(*udpBatch) {}

func (y *udpBatchSys) flush(b *udpBatch, n int) { b.flushEach(0, n) }
