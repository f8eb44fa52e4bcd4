// Package relay is rewind's rooms relay: the hub.
//
// The rooms relay (RoomServer, served by `rewind relay` at
// roomproto.Path) hands out room codes (relay/roomcode: 7 characters by
// default, RoomConfig.CodeLength) and 128-bit room keys, keeps them in a
// directory (relay/roomdir: Memory in one process, Redis shared by a
// fleet of relays), carries the WebRTC signaling between a match's host
// and the players who join by code, and says whether a code has a room
// without joining it (a lookup, counted as a failed join when it has
// none: lookup.go), speaking the rooms protocol (relay/roomproto); relay/turn runs a TURN
// server for players whose direct path fails (RoomConfig.TURN). Match traffic never passes
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
