//go:build !linux

package udp

// udpReadSys, where recvmmsg is not used (not Linux, js/wasm): the reader
// reads one datagram per call.
type udpReadSys struct{}

func (y *udpReadSys) init(*udpReader) {}

func (y *udpReadSys) read(*udpReader) (n int, ok bool, err error) { return 0, false, nil }
