// Package migrate is the part of host migration (docs/rooms.md, "Host
// migration") that needs neither a relay connection nor WebRTC: a
// session's Migrator and the relay's notice that its server is lost
// (SetMigrator, ServerLost), a session that hosts the match it plays in
// over a Conn of its own (PlayHost), and the next server of a session
// that takes the hosting over (ResumeHost). Package rooms builds its
// sessions with it; a browser tab's Worker (view/page/worker), whose
// relay connection and RTCPeerConnection are its page's, uses it
// directly and so links no pion.
package migrate
