// Package codec is rewind's wire format for rollback mode: the input schema
// and its bit-exact delta coding, the match's messages, and reliability
// over unreliable datagrams (acks with a bitmask, resends). It reads no
// clock and opens no socket: time comes in as an argument.
//
// # Inputs
//
// A game declares its input as a struct of fixed-size fields and registers
// it once (RegisterInput, or NewSchema for the untyped Schema). The codec,
// the server and the wire handle inputs in packed form (Schema.Size bytes,
// see Schema); InputType.Pack/Unpack convert without reflection. The server
// sanitizes every input it accepts (Schema.Sanitize) and re-encodes it, so
// every machine applies the same bytes. A player's inputs form a stream
// coded as deltas (Schema.EncodeDelta/DecodeDelta over an InputState): an
// unchanged input costs one bit.
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
// Handshake datagrams have a long header (Magic, type, version); all later
// ones a two-byte short header: type and flags, then the connection tag the
// server gave in Welcome. A receiver drops (and counts) a datagram whose
// magic, type, tag or tick window is wrong: that is how a stray datagram or
// a stale one from an earlier connection on the same address is told
// apart. docs/wire.md describes every message byte by byte.
package codec
