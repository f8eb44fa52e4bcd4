package codec

// A match with private scenes (docs/scenes.md) sends each player a tick
// body whose hash covers what that player sees: the server encodes the
// body once, then copies it per distinct view and writes that view's hash
// over the hash bits (HashBitOffset, PatchTickHash). Everything else in
// the body — events, inputs, late marks — is the same for every view.

// HashBitOffset returns the bit offset, from the start of the body, of
// the hash in the body the last AppendTick wrote.
func (e *TickEncoder) HashBitOffset() int { return e.hashAt }

// HashBits returns how many bits of the world hash a body carries.
func (e *TickEncoder) HashBits() uint8 { return e.hashBits }

// PatchTickHash writes the low n bits of hash over the n bits of body at
// bit offset off (bits fill each byte from its least significant bit, as
// the tick encoder writes them). The caller passes an offset and a count
// from HashBitOffset and HashBits for a body of that encoder; it panics if
// they run past the body.
func PatchTickHash(body []byte, off int, n uint8, hash uint64) {
	if off < 0 || off+int(n) > 8*len(body) {
		panic("codec: tick hash past the body")
	}
	for i := 0; i < int(n); i++ {
		k := off + i
		m := byte(1) << uint(k&7)
		if hash>>uint(i)&1 == 1 {
			body[k>>3] |= m
		} else {
			body[k>>3] &^= m
		}
	}
}
