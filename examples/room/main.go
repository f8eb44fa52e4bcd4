// Command room plays a match in a room of a rooms relay, joined by its
// code: the host registers the room and gets a code, a player joins by
// that code, and the match runs over a WebRTC data channel the relay
// introduced (on this machine: loopback candidates). With -relay URL it
// uses a running relay (`rewind relay` prints one); without it, it starts
// one in-process on 127.0.0.1. After two seconds the host ends the match
// and the program prints the code and what the player verified. The
// game is package race (examples/race), which examples/udpmatch plays
// over UDP.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/examples/race"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
)

func main() {
	url := flag.String("relay", "", "a rooms relay's URL (ws://HOST:PORT/rooms, as rewind relay prints it); empty: one in-process on 127.0.0.1")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, *url, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "room:", err)
		os.Exit(1)
	}
}

// startRelay serves a rooms relay on 127.0.0.1 and returns its URL and
// a function that stops it.
func startRelay() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	rs := relay.NewRoomServer(relay.RoomConfig{})
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, rs)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return "ws://" + ln.Addr().String() + roomproto.Path, func() { rs.Close(); hs.Close() }, nil
}

// run hosts a room at url (a relay of its own when empty), joins it by
// its code, plays, ends the match and prints what the player verified.
func run(ctx context.Context, url string, out io.Writer) error {
	if url == "" {
		u, stop, err := startRelay()
		if err != nil {
			return err
		}
		defer stop()
		url = u
	}
	host, err := rooms.Host[race.Input](ctx, &race.Game{}, rooms.HostOptions{Relay: url})
	if err != nil {
		return err
	}
	defer host.Close()
	fmt.Fprintf(out, "room %s at %s\n", host.Code(), url)
	playing, stop := context.WithTimeout(ctx, race.PlayTime)
	defer stop()
	hostDone := make(chan error, 1)
	go func() { hostDone <- host.Run(playing) }()

	// A player who knows only the relay and the code.
	s, err := rooms.Join[race.Input](ctx, &race.Game{}, url, host.Code(), rooms.JoinOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	s.SetInputFunc(race.Runner(0))
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	if err := <-hostDone; err != nil {
		return err
	}
	// End the match on purpose: the player gets every tick, then a
	// goodbye naming the last.
	if err := host.End(ctx); err != nil {
		return err
	}
	var ended *rewind.EndedError
	if err := <-done; !errors.As(err, &ended) || !ended.Complete() {
		return fmt.Errorf("the player did not see the whole match: %v", err)
	}
	tick, hash, ok := race.Verified(s)
	if !ok {
		return errors.New("the player verified no tick")
	}
	fmt.Fprintf(out, "player: verified tick=%d hash=%016x, joined by code %s\n", tick, hash, host.Code())
	return nil
}
