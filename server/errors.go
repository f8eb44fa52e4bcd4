package server

import "errors"

// ErrConfig indicates an invalid setting.
var ErrConfig = errors.New("server: bad configuration")

// ErrNoPlayer indicates a player id that no player of the match holds
// (Server.Remove).
var ErrNoPlayer = errors.New("server: no such player")
