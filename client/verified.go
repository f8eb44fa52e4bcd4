package client

import "github.com/rewindnet/rewind/world"

// VerifiedTick returns the last tick whose world the client holds and has
// checked against the server's hash (0 before the first), and whether it
// holds one. While a desync waits for its repair there is none: the world
// at the tick that desynced is known to be wrong.
func (c *Client[I]) VerifiedTick() (uint32, bool) {
	k := c.core
	if k == nil || k.broken != 0 {
		return 0, false
	}
	return k.verified, true
}

// CopyVerified makes dst (a world of the client's layout) the world after
// the last verified tick and returns that tick; ok is false (dst
// unchanged) when VerifiedTick has none. It copies the bytes in use of
// the snapshot the rollback ring keeps of that tick (or, in lockstep, of
// the world itself, which is then the verified one).
func (c *Client[I]) CopyVerified(dst *world.World) (tick uint32, ok bool) {
	t, ok := c.VerifiedTick()
	if !ok {
		return 0, false
	}
	return t, c.CopyWorldAt(t, dst)
}
