package roomclient

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"syscall"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// dialError classifies a failed WebSocket dial of rawURL: a *DialError
// when the user can fix it (nothing listens there, or the path is not the
// rooms relay's), else err as it is.
func dialError(rawURL string, resp *http.Response, err error) error {
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		return &DialError{URL: rawURL, Kind: ErrNotRooms, Status: resp.StatusCode, Err: err}
	}
	var dns *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) && dns.IsNotFound {
		return &DialError{URL: rawURL, Kind: ErrNoRelay, Err: err}
	}
	return err
}

// roomsURL is rawURL with the rooms relay's path (roomproto.Path) in
// place of its own, and ws:// for http:// (wss:// for https://); rawURL
// itself if it does not parse.
func roomsURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return rawURL
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = roomproto.Path, "", "", ""
	return u.String()
}

// rootCause is the innermost error of err's chain (its first branch):
// "connection refused" rather than five layers of dialing.
func rootCause(err error) string {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				next = es[0]
			}
		}
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
