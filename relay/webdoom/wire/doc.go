// Package wire holds WebDoom's byte formats: the two fixed binary layouts
// of the tic relay (a client's 12-byte cmd, the relay's 38-byte sealed
// bundle, cmd.go) and the JSON lobby messages both ways, read with
// JavaScript's coercions as WebDoom's server reads them (lobby_in.go,
// lobby_out.go, coerce.go). Every decoder is fuzzed.
package wire
