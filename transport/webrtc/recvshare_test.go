package webrtc

import (
	"fmt"
	"testing"

	"github.com/rewindnet/rewind/transport"
)

// TestRecvShare is issue 43's item 4 on the host's receive queue: one
// peer floods 1,200-byte datagrams (20,000, more than the queue holds)
// while the host reads none; two honest players then send 10 each, and
// every one of theirs is queued and read (before, the flood filled the
// whole queue and every honest datagram was dropped). A 65,000-byte
// message, which a data channel carries but no rewind sender makes, is
// dropped on arrival.
func TestRecvShare(t *testing.T) {
	c := newDCConn(Config{RecvQueue: 1000}.WithDefaults(), "host")
	flood := make([]byte, transport.MaxDatagram)
	for range 20000 {
		c.push("webrtc:attacker", flood)
	}
	if c.size > 500 {
		t.Fatalf("the flooder alone holds %d of 1000, want at most half", c.size)
	}
	for i := range 10 {
		for p := range 2 {
			c.push(transport.Addr(fmt.Sprintf("webrtc:player%d", p)), []byte{byte(i)})
		}
	}
	c.push("webrtc:player0", make([]byte, 65000))
	honest, buf := 0, make([]byte, 2000)
	for {
		n, from, err := c.Recv(buf)
		if err != nil {
			break
		}
		if from != "webrtc:attacker" {
			honest++
			if n != 1 {
				t.Errorf("a datagram of %d bytes from %s read", n, from)
			}
		}
	}
	st := c.Stats()
	t.Logf("honest %d of 20 read; %d dropped, %d too large", honest, st.RecvDropped, st.RecvTooLarge)
	if honest != 20 || st.RecvTooLarge != 1 {
		t.Errorf("honest %d of 20 read, %d too large; want 20 and 1", honest, st.RecvTooLarge)
	}
	if len(c.share.held) != 0 {
		t.Errorf("shares held after the queue emptied: %v", c.share.held)
	}
}
