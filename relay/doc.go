// Package relay is rewind's rooms relay: the hub and its TURN server.
//
// The rooms relay (RoomServer, served by `rewind relay` at
// roomproto.Path) hands out 6-character room codes (relay/roomcode) and
// 128-bit room keys, keeps them in a directory (relay/roomdir: Memory in
// one process, Redis shared by a fleet of relays), and carries the WebRTC
// signaling between a match's host and the players who join by code,
// speaking the rooms protocol (relay/roomproto); StartTURN runs a TURN
// server for players whose direct path fails. Match traffic never passes
// through the relay.
//
// The client side (hosting, joining, claiming, opening and serving rooms)
// is package relay/roomclient, which links neither the hub, nor Redis,
// nor a TURN server: what a browser page or a desktop window needs. The
// WebDoom relay is a package of its own, relay/webdoom.
//
// The relay uses package transport (addresses, its WebRTC ICE types),
// never server, client or codec.
package relay
