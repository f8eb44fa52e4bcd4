// Package gateway lets a client in any language play a rewind match over
// one WebSocket, with versioned JSON (protocol version 2 of a well-known
// lockstep design; docs/gateway.md has every message): it receives one
// authoritative state at a completed tick (initial_state), then every
// tick, numbered, with the commands the server scheduled into it and the
// world's hash after it; it sends its inputs with a strictly increasing
// sequence, which the gateway validates against the game's input schema.
//
// Each connection plays as a lockstep player of the match (client's
// Lockstep mode) over an in-process loopback network whose server side,
// Conn, the match's rewind Host runs over (beside UDP or WebRTC, through a
// transport.MultiConn): one match, with rollback, lockstep and JSON
// players alike. Beyond the original design it keeps a player's slot for
// a resume with replay history, repairs a reported hash mismatch with a
// checkpoint, and defines the world hash for other languages
// (docs/world.md).
//
// The package lives apart from server, client and the root package so
// that coder/websocket stays out of what a plain game links.
package gateway
