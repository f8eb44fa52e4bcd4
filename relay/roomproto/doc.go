// Package roomproto is the rooms protocol that the rooms relay (package
// relay) speaks with hosts, players, lobbies and match servers (package
// relay/roomclient): JSON text messages (Msg) over one WebSocket each, at
// Path. It holds the message types, the error codes and their errors,
// the limits on fields, and the decoder that checks what a client sends;
// msg.go has the flows, docs/rooms.md every message with examples. Room
// codes are package relay/roomcode's.
package roomproto

// Path is the HTTP path the rooms relay is served at by `rewind relay`
// and `rewind demo`: hosts and players connect to ws://HOST:PORT/rooms.
const Path = "/rooms"
