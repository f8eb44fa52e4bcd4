// Package rooms is the room side of rewind's face: a match hosted in a
// room of a rooms relay (Host), and players who join it by the room code
// (Join, or Dial for the bare transport.Conn), over WebRTC data channels
// that the relay introduces. It sits above the root package, package relay
// (the relay's client) and transport/webrtc (pion), so that a game that
// never uses rooms links none of them. See docs/rooms.md.
//
//	h, err := rooms.Host(ctx, game, rooms.HostOptions{Relay: url})
//	// tell players h.Code(); h.Run(ctx) drives the match; h.Close()
//	s, err := rooms.Join(ctx, game, url, code, rooms.JoinOptions{})
//	// s is a *rewind.Session: s.Run(ctx), s.SetInput, s.View
//
// A room that must outlive its relay (a relay of a fleet dies, or a lone
// relay restarts) is registered again only by a host that can claim it
// back: Host with HostOptions.HostMigration (the relay keeps such a room
// for its claims), or Serve, a match server (ServeOptions.Reconnect,
// Relays; Rooms: 1 for one room), which is what `rewind serve --relay
// URL1,URL2` runs without --host-migration. Host with HostOptions.Relays
// but without HostMigration tries the relays in turn for the first
// registration only: the relay forgets such a room with its host's
// connection, and a claim would make it a migrating room, so when the
// relay connection drops its players play on and no one new can join by
// the code.
package rooms
