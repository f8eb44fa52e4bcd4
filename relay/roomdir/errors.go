package roomdir

import "errors"

var (
	// ErrRedis indicates a Redis (Redis, the fleet's directory) that
	// could not be reached or failed a command.
	ErrRedis = errors.New("relay: redis")
)
