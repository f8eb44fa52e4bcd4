package roomclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// A player (or a claimant, or a host) of a fleet of relays sharing Redis
// may be given the URLs of several of them: JoinOptions.URLs,
// ClaimOptions.URLs and HostOptions.URLs. It tries them in turn, URL
// first: a relay that cannot be reached (connection refused, a failed
// handshake), that closes the connection before answering, or that does
// not answer within the try's bound (DefaultTryTimeout) is passed over
// for the next. A relay's answer about the room (no_room, room_ended,
// room_full, room_busy, bad_key, a taken or bad code) is final: every relay of the
// fleet reads the same directory, so the next would answer the same. A
// refusal about the relay itself (too_many_conns, rate_limited, slow,
// idle, bad_version: its own limits, or an older relay) moves on too.
// One pass over the list: a caller that wants more (a claim) tries
// again.

// DefaultTryTimeout is JoinOptions.TryTimeout's default (and ClaimOptions'
// and HostOptions'): how long a relay of a list may take to accept the
// connection and answer the request before the next is tried.
const DefaultTryTimeout = 5 * time.Second

// SplitURLs takes a comma-separated list of relay URLs apart (a
// command's --relay URL1,URL2,…), trimming spaces and dropping empty
// entries: the URLs to try in turn, none for an empty list.
func SplitURLs(list string) []string {
	var urls []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

// relayList is URL then URLs, without empty entries.
func relayList(url string, more []string) []string {
	urls := make([]string, 0, 1+len(more))
	for _, u := range append([]string{url}, more...) {
		if u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

// reached is a relay connection that answered its first request.
type reached struct {
	rc    *roomClient
	first roomproto.Msg // the relay's answer
	start func()        // lets the reader hand later messages to the handler
	url   string        // the relay that answered
}

// reach sends req to the relays of urls in turn (see above) and returns
// the first that answers, with its answer (want: the type expected, or
// any when empty). Every try but the last is bounded by bound (0:
// DefaultTryTimeout); the last by ctx only. A definite refusal from a
// live relay ends the tries with it; when no relay answers, the error
// names each one's failure. handle gets the messages after start.
func reach(ctx context.Context, urls []string, bound time.Duration, req *roomproto.Msg, want string, handle func(roomproto.Msg)) (reached, error) {
	if len(urls) == 0 {
		return reached{}, fmt.Errorf("relay: no relay URL: %w", ErrNoAnswer)
	}
	if bound <= 0 {
		bound = DefaultTryTimeout
	}
	var errs []error
	for i, url := range urls {
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if i < len(urls)-1 {
			tctx, cancel = context.WithTimeout(ctx, bound)
		}
		r, err := reachOne(tctx, url, req, want, handle)
		late := tctx.Err() != nil && ctx.Err() == nil
		cancel()
		if err == nil {
			return r, nil
		}
		if late { // this relay's bound, not the caller's deadline
			err = fmt.Errorf("relay: %s at %s: %w within %v", req.Type, url, ErrNoAnswer, bound)
		}
		errs = append(errs, err)
		if final(err) || ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 1 {
		return reached{}, errs[0]
	}
	return reached{}, fmt.Errorf("relay: no relay of %d took the request: %w", len(urls), errors.Join(errs...))
}

// reachOne dials url, sends req and waits for the answer.
func reachOne(ctx context.Context, url string, req *roomproto.Msg, want string, handle func(roomproto.Msg)) (reached, error) {
	rc, replies, start, err := dialRoomGated(ctx, url, handle)
	if err != nil {
		return reached{}, err
	}
	rc.send(req)
	m, err := firstReply(ctx, rc, replies, want)
	if err != nil {
		rc.close()
		return reached{}, fmt.Errorf("relay: %s at %s: %w", req.Type, url, err)
	}
	return reached{rc: rc, first: m, start: start, url: url}, nil
}

// final reports whether err is a live relay's answer about the room,
// which every relay of the fleet would give.
func final(err error) bool {
	var re *roomproto.Error
	if !errors.As(err, &re) {
		return false // not reached, closed, or no answer in time
	}
	switch re.Code {
	case roomproto.ErrCodeTooManyConns, roomproto.ErrCodeRateLimited, roomproto.ErrCodeBadVersion, roomproto.ErrCodeSlow, roomproto.ErrCodeIdle:
		return false
	}
	return true
}
