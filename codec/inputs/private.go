package inputs

// Private fields. A field tagged `rewind:"private"` goes from its player
// to the server and is never relayed to the other players: the server
// relays the input with every private field zero (HidePrivate), so the
// others see it as zero — its last relayed value, which prediction
// repeats — and learn what it was only through the world, as far as the
// game lets the world show it (docs/scenes.md). The player's own client
// puts its private fields back into its confirmed input (CopyPrivate).
// An input type without private fields costs nothing more: the same
// packed form, deltas and fingerprint.
//
//	type Input struct {
//		Action uint8
//		Bid    uint16 `rewind:"private,max=500"`
//	}

// HasPrivate reports whether any field is private.
func (s *Schema) HasPrivate() bool { return len(s.priv) > 0 }

// HidePrivate zeroes the private fields of the packed input p.
func (s *Schema) HidePrivate(p []byte) {
	for _, r := range s.priv {
		clear(p[r[0]:r[1]])
	}
}

// CopyPrivate copies the private fields of the packed input src into the
// packed input dst.
func (s *Schema) CopyPrivate(dst, src []byte) {
	for _, r := range s.priv {
		copy(dst[r[0]:r[1]], src[r[0]:r[1]])
	}
}
