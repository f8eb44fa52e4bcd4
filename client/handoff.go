package client

import (
	"fmt"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Handoff is what a client that lost its server (host migration) carries
// to the match's next server: its last verified tick and world, the tick
// stream's roster at that tick, the old server's newest handover data,
// and who it was. A client that hosts next gives it to
// server.Config.Resume (Tick, World, Roster, Handover); every client
// that rejoins gives it to Config.Resume.
type Handoff struct {
	// Tick is the last verified tick; World the world after it.
	Tick  uint32
	World *world.World
	// Roster is the tick stream's roster after Tick (a codec.Roster
	// snapshot).
	Roster []byte
	// Handover is the newest handover data the old server sent.
	Handover codec.Handover
	// Player and Cookie are the client's id and the cookie it holds.
	Player game.PlayerID
	Cookie [codec.CookieSize]byte
}

// Handoff returns what the client carries to the match's next server,
// and false if it cannot: it holds no handover data, had no world yet (it
// was still loading its first), or its world is broken (a desync being
// repaired). It first folds in every tick the server confirmed, so that
// the world and the roster are of the same tick. A client loading a newer
// world after a rebase hands off from the tick it had verified before.
// After a handoff (true) the client must not be updated.
func (c *Client[I]) Handoff() (Handoff, bool) {
	h, why := c.HandoffWhy()
	return h, why == ""
}

// HandoffWhy is Handoff that says why the client cannot hand off
// instead of false ("" if it can: no handover data, no world yet, a world
// being repaired, ticks received but not verified), for the error that
// ends a session with host migration.
func (c *Client[I]) HandoffWhy() (Handoff, string) {
	if c.phase == loading && c.ho.rebased != nil && c.ho.have {
		h := *c.ho.rebased
		h.Handover, h.Cookie = c.ho.msg, c.join.cookie
		return h, ""
	}
	k := c.core
	switch {
	case !c.ho.have:
		return Handoff{}, "no handover data from the server"
	case k == nil || c.phase == connecting || c.phase == loading:
		return Handoff{}, "no world yet (" + c.phase.String() + ")"
	case c.fetch.active:
		return Handoff{}, "fetching the world"
	}
	for {
		k.process()
		if k.broken != 0 {
			return Handoff{}, fmt.Sprintf("the world of tick %d is being repaired (a desync)", k.broken)
		}
		if c.rx.bodyAt[c.rx.decodeNext&c.rx.bmask] != c.rx.decodeNext {
			break
		}
		if err := c.decode(c.clock.lastNow); err != nil {
			break
		}
	}
	if k.verified != c.rx.decodeNext-1 {
		return Handoff{}, fmt.Sprintf("tick %d verified, %d received", k.verified, c.rx.decodeNext-1)
	}
	w := world.NewFromLayout(c.w.Layout())
	if !c.CopyWorldAt(k.verified, w) {
		return Handoff{}, fmt.Sprintf("no snapshot of tick %d", k.verified)
	}
	return Handoff{
		Tick: k.verified, World: w, Roster: c.rx.dec.Roster().AppendSnapshot(nil),
		Handover: c.ho.msg, Player: c.me, Cookie: c.join.cookie,
	}, ""
}

// resume starts a new client from a handoff: hello with its cookie, and
// the world it verified last as the one the new server's pages are
// compared with.
func (c *Client[I]) resume(h *Handoff) error {
	if h.World == nil {
		return fmt.Errorf("client: resume without a world: %w", ErrConfig)
	}
	var snap world.Snapshot
	h.World.SnapshotInto(&snap)
	if err := c.w.Restore(&snap); err != nil {
		return fmt.Errorf("client: resume: %w", err)
	}
	c.cfg.Cookie = append([]byte(nil), h.Cookie[:]...)
	c.ho.msg, c.ho.have, c.ho.inherited = h.Handover, true, true
	return nil
}
