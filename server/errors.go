package server

import "errors"

// ErrConfig indicates an invalid setting.
var ErrConfig = errors.New("server: bad configuration")
