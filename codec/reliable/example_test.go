package reliable_test

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec/reliable"
)

// A sender tracks what it sent and resends until the peer's Ack covers it;
// time is passed in.
func ExampleResender() {
	t0 := time.Unix(0, 0)
	s := reliable.NewResender(reliable.ResendConfig{}, 1) // first number 1
	var r reliable.RecvWindow
	r.Reset(1)
	for seq := uint32(1); seq <= 4; seq++ {
		s.Sent(seq, t0)
		if seq != 2 { // 2 is lost
			r.Add(seq)
		}
	}
	ack := r.Ack()
	fmt.Printf("ack next=%d mask=%b\n", ack.Next, ack.Mask)
	s.OnAck(ack, t0.Add(100*time.Millisecond))
	fmt.Println("send again:", s.Due(t0.Add(100*time.Millisecond), nil))
	// Output:
	// ack next=2 mask=11
	// send again: [2]
}
