package raw

import (
	"context"
	"time"
)

// BotsConfig is a process's raw bots.
type BotsConfig struct {
	// Server is the raw loop's UDP address; Local the bots' IP address.
	Server, Local string
	// Count is the number of bots, Size the bytes of each datagram,
	// Rate the datagrams a second of each.
	Count, Size, Rate int
}

// everyTick calls f rate times a second until ctx ends.
func everyTick(ctx context.Context, rate int, f func()) error {
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			f()
		}
	}
}
