// Package reliable is reliability over unreliable datagrams for rewind's
// streams of sequence numbers (a client's server ticks, a client's inputs,
// a world transfer's chunks): the receiver's RecvWindow says what it holds
// as an Ack (the next missing number and a 64-bit mask of the ones after
// it), and the sender's Resender takes those Acks, estimates the round
// trip, and says which numbers to send again. It knows nothing of the
// messages that carry the Acks (package codec encodes them) and reads no
// clock: time comes in as now.
package reliable
