package flood

import "errors"

// ErrServer indicates a flooder's server that is neither Sink nor an
// address.
var ErrServer = errors.New("flood: bad server address")
