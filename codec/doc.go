// Package codec is rewind's wire format for rollback mode: the match's
// messages, their headers and their framing in datagrams. It reads no
// clock and opens no socket: time comes in as an argument.
//
// # Layout
//
// Two parts of the wire format that have no message of their own are
// subpackages, because each has a clean seam to the messages and neither
// needs anything from them:
//
//   - codec/inputs: the input schema (a game's input struct read once into
//     a Schema), packing, sanitizing, the adaptive delta coding of an input
//     stream and the bit streams it is written in. codec uses it for the
//     inputs inside ClientInputs, tick bodies (TickEncoder, TickDecoder) and
//     the Welcome roster (Roster).
//   - codec/reliable: acks with a 64-bit mask (Ack, RecvWindow) and the
//     sender's resend timers (Resender). codec only encodes an Ack inside
//     ClientInputs, ServerTicks and WorldAck (ack.go).
//
// What stays here is one file per message (hello.go, welcome.go,
// client_inputs.go, server_ticks.go, ...) with its Length, Append and
// Parse; header.go (the long and short headers, Peek, tick expansion);
// tick.go and roster.go (the tick body, which interleaves join and leave
// events with input deltas); varint.go; errors.go. (WebDoom's formats,
// unrelated to rollback, are package relay/webdoom/wire.) Neither
// subpackage imports codec, so there is no cycle; the size limit of a
// datagram is MaxDatagram, codec's own (formats know no sockets: codec
// imports no transport package); transport.MaxDatagram equals it.
//
// # Protocol flow
//
//	client                                   server
//	Hello{version, game, [cookie]}  ------>
//	                                <------  Refuse{reason}   (and stop), or
//	                                <------  Welcome{player, tag, cookie, tick, roster}
//	                                <------  WorldChunk ... (world at tick, resent until acked)
//	WorldAck{transfer, ack}         ------>
//	ClientInputs{first, inputs, ack of server ticks}  ---> every tick
//	                                <------  ServerTicks{ticks, ack of inputs, margin} every tick
//	PageHashRequest{tick, pages}    ------>  (after a hash mismatch)
//	                                <------  PageHashes{tick, hashes}
//	PageRequest{tick, pages, transfer} --->
//	                                <------  WorldChunk ... (paged delta)
//	Ping / Pong                     <----->  (either way, any time)
//	Bye{reason}                     <----->  (either way; repeated, not acked)
//
// Handshake datagrams have a long header (a four-byte magic, type,
// version); all later ones a two-byte short header: type and flags, then the connection tag the
// server gave in Welcome. A receiver drops (and counts) a datagram whose
// magic, type, tag or tick window is wrong: that is how a stray datagram or
// a stale one from an earlier connection on the same address is told
// apart. docs/wire.md describes every message byte by byte.
package codec
