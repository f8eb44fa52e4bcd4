package turn

import (
	"github.com/pion/stun/v4"
	pionturn "github.com/pion/turn/v5"
)

// TURN credentials outlive a long match. A credential (the TURN REST-API
// scheme: an expiry and a user in its name) is valid for a new
// allocation until it expires (Config.CredentialTTL, 6 h by
// default). Two things keep a match going past it:
//
//   - An allocation made in time keeps being refreshed (its permissions
//     and channels too) with the credential it was made with, for as
//     long as the relay that handed it out says the user is a member of
//     a live room: the room's code (user "CODE-host", "CODE-pN") is live
//     there, or the match server ("server-ID") is still connected. Only
//     a request on an existing allocation is taken so (pion answers one
//     without an allocation for its 5-tuple with an error after the
//     check); a new allocation needs an unexpired credential.
//   - A host or a match server, which makes a new PeerConnection (and a
//     new allocation) for every player who joins, is handed fresh
//     credentials at half of CredentialTTL: the relay's "ice" message,
//     which roomclient gives to its WebRTC host for the peers to come
//     (webrtc.Host.SetICEServers). Players are given theirs when they
//     join (or claim), and keep their allocation as above.

// SetLive installs the relay's check of whether a credential's user
// is still a member of a live room (the refreshes of long matches).
func (t *Server) SetLive(f func(user string) bool) { t.live.Store(&f) }

// renews reports whether a request with an expired credential of user
// is to be taken: one on an existing allocation (not an Allocate) of a
// user the relay says is still in a live room.
func (t *Server) renews(ra *pionturn.RequestAttributes, user string) bool {
	f := t.live.Load()
	if ra.Method == stun.MethodAllocate || f == nil || !(*f)(user) {
		return false
	}
	t.renewed.Add(1)
	return true
}

// Renewed counts the requests on existing allocations (refreshes,
// permissions, channel binds) taken with a credential past its expiry
// because its room still lives.
func (t *Server) Renewed() uint64 { return t.renewed.Load() }
