// Package migrate is host migration's one vocabulary (docs/rooms.md,
// "Host migration"): what a session that lost its server hands to the
// match's next server (client.Handoff), the function that moves it there
// (Migrator) and where it goes on (Migrated), the match's server as a
// session runs it (Server), a session's side of it (Mover, which
// rewind.Session.Migration returns), and the server of a session that
// hosts the match it plays in (Serve: a new match; Resume: a match taken
// over from a handoff).
//
// Where each part runs: the session's move (its handoff, the Migrator on
// a goroutine of its own, the new client) is package rewind's
// (migrate.go); package rooms' Migrator claims the room at a relay
// (rooms/migrate.go, with relay/roomclient's ClaimRoom); a browser tab's
// Worker has its own Migrator, its page claiming the room
// (view/page/worker); the relay's side of a claim is relay/migrate.go.
// Everything here is typed by the game's input I: a Migrator of another
// input type does not compile. It links neither a relay client nor
// WebRTC.
package migrate
