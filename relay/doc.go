// Package relay holds rewind's two relays and their client sides.
//
// The rooms relay (RoomServer, served by `rewind relay` at RoomPath) hands
// out 6-character room codes and 128-bit room keys, keeps them in a
// RoomDirectory (MemoryRoomDirectory in one process), and carries the
// WebRTC signaling between a match's host and the players who join by
// code; StartTURN runs a TURN server for players whose direct path fails.
// A host calls HostRoom and gets a webrtc.Host that takes every
// player; a player calls JoinRoom and gets a webrtc.Peer talking
// to the host. Match traffic never passes through the relay.
//
// The WebDoom relay (WebDoomServer, around the single-threaded
// WebDoomCore) speaks WebDoom's lobby and tic-relay protocol byte for
// byte, so that unmodified WebDoom clients play through it; docs/webdoom.md
// describes it.
//
// The relay uses package transport (and codec for the WebDoom formats),
// never server or client.
package relay
