package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// defaultRelayURL is where `rewind demo` (and `rewind relay`) listen by
// default.
const defaultRelayURL = "ws://127.0.0.1:8080" + roomproto.Path

// joinFlags are play's flags for joining a match by its room code
// (`rewind play --join CODE --relay URL`).
type joinFlags struct {
	code     string
	relay    string
	relayTo  bool // force every path through the relay's TURN server
	joinWait time.Duration
	log      *slog.Logger // the host migration's steps, at debug level (nil: none)
}

func (j *joinFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&j.code, "join", "", "join the match in this room (the code rewind serve --relay or rewind demo printed) instead of --connect")
	fs.StringVar(&j.relay, "relay", defaultRelayURL, "with --join: the rooms relay's ws:// URL, or a comma-separated list of the URLs of a fleet's relays (relay --redis), tried in turn: a relay that refuses the connection or does not answer within 5 s is passed over for the next (a live relay's no room, ended or full is final: the fleet's relays share one directory); a host migration claims the room through the list too")
	fs.BoolVar(&j.relayTo, "turn-only", false, "with --join: send every datagram through the relay's TURN server (ICE policy relay)")
	fs.DurationVar(&j.joinWait, "join-timeout", 15*time.Second, "with --join: give up when the data channel to the host is not open within this long")
}

// check refuses --connect with --join.
func (j *joinFlags) check(connect string) error {
	switch {
	case j.code != "" && connect != "":
		return usageError{Err: errors.New("--connect and --join exclude each other")}
	case j.code != "" && len(roomclient.SplitURLs(j.relay)) == 0:
		return usageError{Err: errors.New("--join needs --relay URL")}
	case j.joinWait <= 0:
		return usageError{Err: fmt.Errorf("--join-timeout %v: want a positive duration", j.joinWait)}
	}
	return nil
}

// joinRoom joins j's room and starts a session of g as a client of its
// host (rooms.Join: the session owns the data channel); where names the
// server in later messages.
func joinRoom[I any](ctx context.Context, j *joinFlags, g rewind.Game[I], opts rewind.Options) (s *rewind.Session[I], where string, err error) {
	where = fmt.Sprintf("room %s (relay %s)", j.code, j.relay)
	ctx, cancel := context.WithTimeout(ctx, j.joinWait)
	defer cancel()
	// Host migration is on: it only acts in a room hosted with it (rewind
	// serve --host-migration), whose server sends the handover data.
	urls := roomclient.SplitURLs(j.relay)
	s, err = rooms.Join(ctx, g, urls[0], j.code, rooms.JoinOptions{Options: opts, Relays: urls[1:],
		WebRTC: webrtc.Config{RelayOnly: j.relayTo}, HostMigration: true, Server: rewind.ServerConfig{PlayerTimeout: opts.Client.ServerTimeout}, Log: j.log})
	if err != nil {
		return nil, where, joinError(j.code, j.relay, j.joinWait, err)
	}
	return s, where, nil
}

// joinError turns a failed join into one clear line.
func joinError(code, url string, wait time.Duration, err error) error {
	var de *roomclient.DialError
	switch {
	case errors.As(err, &de):
		return de // no relay there, or not its rooms path: one line saying what to do
	case errors.Is(err, roomproto.ErrNoRoom):
		return fmt.Errorf("no room %s at the relay %s (check the code)", code, url)
	case errors.Is(err, roomproto.ErrUnavailable):
		return fmt.Errorf("room %s: the room directory of the relay %s is unavailable, try again in a few seconds", code, url)
	case errors.Is(err, roomproto.ErrRoomEnded):
		return fmt.Errorf("the match in room %s has ended", code)
	case errors.Is(err, roomproto.ErrRoomFull):
		return fmt.Errorf("room %s is full (its match has all the players it takes: serve --max-players): wait for a player to leave, or host a room of your own (rewind serve --relay %s, or the page's \"host a new room\")", code, url)
	case errors.Is(err, roomproto.ErrBadCode):
		return usageError{Err: fmt.Errorf("--join %q: a room code is 6 to 12 characters of 23456789ABCDEFGHJKLMNPQRSTUVWXYZ", code)}
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("could not reach the host of room %s within %v (--join-timeout): %v", code, wait, err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted while joining room %s", code)
	}
	return fmt.Errorf("cannot join room %s at %s: %v", code, url, err)
}
