package server

import (
	"crypto/rand"
	"fmt"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Scenes (docs/scenes.md). When the game's world has private or
// server-only scenes, a player is sent only what it sees:
//
//   - each tick's body carries the hash of the player's view of the world
//     (world.ViewHash: the public scene and its private scenes), computed
//     once per distinct view in the tick and written over the body's hash
//     bits in a copy per view; the world's full hash never leaves;
//   - world transfers, page hashes and repair pages are made from the
//     player's view of the world at that tick (world.CopyView: every scene
//     it does not see empty), so a hidden page goes as a zero page and its
//     hash as a zero page's, whatever it holds.
//
// A spectator (codec.SpectatorID) sees the public scene only
// (world.ViewOf of an id outside 0..63): while the match has spectators,
// each tick also gets a body for that view (shared with any player whose
// view it is), and a spectator's transfers, page hashes and repair pages
// are made from the public scene alone.
//
// A world without scenes takes none of these paths.

// sceneState is the server's scratch for scenes.
type sceneState struct {
	on     bool
	vw     *world.World // a player's view of some world (viewWorld)
	setup  *world.World // the setup world, for a view's base (viewSetup)
	snap   world.Snapshot
	hashes []uint64
	relay  []byte // an input as relayed: private fields zero (relayed)
	// viewHashes counts view hashes computed (ticks × distinct views).
	viewHashes uint64
}

// viewBody is a tick body for one view: the body with the view's hash.
type viewBody struct {
	view world.View
	hash uint64
	body []byte
}

// viewBodies are a record's bodies per distinct view, which one each
// player id gets and which one the spectators get (noView: none, the id
// held no player then, or the match had no spectator).
type viewBodies struct {
	views []viewBody
	n     int
	of    []uint8
	spec  uint8
}

const noView = 0xff

// ScenesHashBits is the default Config.HashBits of a world with private
// scenes: clients there mispredict whenever Step reads what they cannot
// see, and while a quiet world does not change, a wrong world whose
// hash agrees in the bits sent stays unseen: at 8 bits one misprediction
// in 256 would, at 32 one in 4 billion.
const ScenesHashBits = 32

// initScenes sets up the scene state and gives a game that keeps secrets
// its secret (hashBits: Config.HashBits as given, 0 for the default). It
// runs before the setup snapshot is taken and the tick encoder made.
func (s *Server[I]) initScenes(hashBits int) error {
	l := s.w.Layout()
	if sg, ok := game.As[game.SecretSetup](s.g); ok {
		secret := s.cfg.Secret
		if secret == [32]byte{} {
			if _, err := rand.Read(secret[:]); err != nil {
				return fmt.Errorf("server: secret: %w", err)
			}
		}
		sg.SetupSecrets(s.w, secret)
	}
	if !l.HasScenes() {
		return nil
	}
	if s.cfg.HostMigration {
		return fmt.Errorf("%w: HostMigration with private scenes (a new host would lack the secrets)", ErrConfig)
	}
	s.scn.on = true
	if hashBits == 0 {
		s.cfg.HashBits = ScenesHashBits
	}
	s.scn.vw = world.NewFromLayout(l)
	s.scn.setup = world.NewFromLayout(l)
	return nil
}

// viewBodies writes rec's bodies per view: for every player, its view of
// the world after the tick, and, while the match has spectators, theirs
// (the public scene); one hash and one body per distinct view.
func (s *Server[I]) viewBodies(rec *record) {
	vb := &rec.vb
	if len(vb.of) < len(s.players) {
		vb.of = make([]uint8, len(s.players))
	}
	vb.n = 0
	for id, p := range s.players {
		vb.of[id] = noView
		if p != nil {
			vb.of[id] = s.viewBody(rec, s.w.ViewOf(id))
		}
	}
	vb.spec = noView
	if len(s.specs) > 0 {
		vb.spec = s.viewBody(rec, s.w.ViewOf(codec.SpectatorID))
	}
}

// viewBody returns the index in rec.vb of the body of view v, writing it
// if the tick has none yet.
func (s *Server[I]) viewBody(rec *record, v world.View) uint8 {
	vb := &rec.vb
	k := 0
	for k < vb.n && vb.views[k].view != v {
		k++
	}
	if k == vb.n {
		if k == len(vb.views) {
			vb.views = append(vb.views, viewBody{})
		}
		enc := s.wire.enc
		b := &vb.views[k]
		b.view, b.hash = v, s.w.ViewHash(v)
		b.body = append(b.body[:0], rec.body...)
		codec.PatchTickHash(b.body, enc.HashBitOffset(), enc.HashBits(), b.hash)
		vb.n++
		s.scn.viewHashes++
	}
	return uint8(k)
}

// bodyFor returns the body of rec that player id (codec.SpectatorID: a
// spectator) is sent: its view's with scenes, else the one body. nil:
// none (scenes, and the id held no player when the tick ran, so the
// player was welcomed after it and is never sent it; for a spectator, the
// match had none then, so it came after and is never sent it either).
func (rec *record) bodyFor(id int, scenes bool) []byte {
	if !scenes {
		return rec.body
	}
	k := uint8(noView)
	switch {
	case id == codec.SpectatorID:
		k = rec.vb.spec
	case id < len(rec.vb.of):
		k = rec.vb.of[id]
	}
	if k == noView || int(k) >= rec.vb.n {
		return nil
	}
	return rec.vb.views[k].body
}

// viewWorld returns what player id (codec.SpectatorID: a spectator, who
// sees the public scene) sees of w: w itself without scenes, else a copy with every scene the player does not see in w empty (valid
// until the next call).
func (s *Server[I]) viewWorld(w *world.World, id int) *world.World {
	if !s.scn.on {
		return w
	}
	_ = s.scn.vw.CopyView(w, w.ViewOf(id)) // same layout: cannot fail
	return s.scn.vw
}

// viewSetup returns the world Setup made as view v sees it, as a snapshot
// (the base of a new player's first world transfer): the server's setup
// holds its secrets, which no client's does.
func (s *Server[I]) viewSetup(v world.View) *world.Snapshot {
	if !s.scn.on {
		return &s.setup
	}
	_ = s.scn.setup.Restore(&s.setup) // same layout: cannot fail
	s.scn.setup.Hide(v)
	s.scn.setup.SnapshotInto(&s.scn.snap)
	return &s.scn.snap
}

// pageHashesFor returns the page hashes of what player id (or a
// spectator, codec.SpectatorID) sees of the world after tick t.
func (s *Server[I]) pageHashesFor(t uint32, id int) ([]uint64, bool) {
	if !s.scn.on {
		return s.pageHashesAt(t)
	}
	w, ok := s.worldAt(t)
	if !ok {
		return nil, false
	}
	s.scn.hashes = s.viewWorld(w, id).PageHashes(s.scn.hashes)
	return s.scn.hashes, true
}

// ViewHashes returns how many view hashes the server has computed: one
// per distinct view per tick (0 for a world without scenes).
func (s *Server[I]) ViewHashes() uint64 { return s.scn.viewHashes }

// relayed returns the packed input in as the other players are sent it:
// with its private fields zero (codec/inputs: HidePrivate), or in itself
// when the input type has none. The server's own Step uses in.
func (s *Server[I]) relayed(in []byte) []byte {
	sc := s.it.Schema
	if !sc.HasPrivate() {
		return in
	}
	s.scn.relay = append(s.scn.relay[:0], in...)
	sc.HidePrivate(s.scn.relay)
	return s.scn.relay
}
