package bench

import "errors"

// ErrNoCommand indicates a benchmark that runs child processes was given
// no command to run them with (Config.Command).
var ErrNoCommand = errors.New("bench: no command for the child processes")
