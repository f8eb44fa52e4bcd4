// Package roomcode is the one definition of rewind's room codes: their
// alphabet (32 letters and digits without 0/O and 1/I), their lengths,
// the check of a code and the drawing of a fresh one.
//
// The rooms relay (package relay and its protocol, relay/roomproto), the
// room side (package rooms) and the many-matches runtime all take their
// codes from here. The package imports only the standard library, so
// the light core may use it. A Hello's room field (codec.RoomCodeSize)
// holds a code of Len characters; a test here keeps the two equal.
package roomcode
