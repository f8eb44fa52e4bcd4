// Package relay holds rewind's rooms relay and its client side.
//
// The rooms relay (RoomServer, served by `rewind relay` at roomproto.Path) hands
// out 6-character room codes and 128-bit room keys, keeps them in a
// roomdir.Directory (roomdir.Memory in one process), and carries the
// WebRTC signaling between a match's host and the players who join by
// code; StartTURN runs a TURN server for players whose direct path fails.
// A host calls HostRoom and gets a webrtc.Host that takes every
// player; a player calls JoinRoom and gets a webrtc.Peer talking
// to the host. Match traffic never passes through the relay.
//
// The WebDoom relay is a package of its own, relay/webdoom.
//
// The relay uses package transport (and codec for refusal reasons), never
// server or client.
package relay
