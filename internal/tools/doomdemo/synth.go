package doomdemo

// Synthetic returns a DOOM 1.9 demo of players players and tics tics,
// its commands drawn from a linear congruential generator seeded with
// seed (the same bytes for the same arguments): test data for the
// codec benchmarks when no real demo is needed.
func Synthetic(players, tics, seed int) []byte {
	b := []byte{109, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for p := 0; p < players; p++ {
		b[9+p] = 1
	}
	x := uint32(seed*7919 + 1)
	for t := 0; t < tics*players; t++ {
		x = x*1664525 + 1013904223
		fwd := byte(x>>24) % 101
		if fwd == 0x80 {
			fwd = 0
		}
		b = append(b, fwd, byte(x>>16)%3, byte(x>>8)%5, byte(x)%3)
	}
	return append(b, 0x80)
}
