// Package replay records, loads, plays back and verifies replays of a
// match. A Recorder set as rewind.ServerConfig.Record (or
// ClientConfig.Record, or returned by ServerConfig.NewRecorder) writes the
// match to a file a frame of about a second at a time, with keyframes for
// seeking; Verify simulates a replay again with its game and checks every
// tick's hash; Load returns a Player that seeks and steps a replay for a
// view. The file format is codec's (replay.go there); this package
// imports only codec, codec/inputs, game and world.
package replay

import "github.com/rewindnet/rewind/codec"

// Header is a replay's header: the game's name, fingerprint, tick rate,
// players and input size, settings, start time and who recorded it (see
// codec.ReplayHeader).
type Header = codec.ReplayHeader
