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
package rooms
