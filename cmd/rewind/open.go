package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rewindnet/rewind/relay/roomclient"
)

func init() {
	register("open", "ask the rooms relay for a new room on a match server with a free slot (serve --relay URL --on-demand); prints room=CODE", runOpen)
}

// runOpen is rewind open: a lobby's request for a room on demand. It
// prints room=CODE once a match server opened it (and key=KEY with
// --key), or fails (exit 1) with the relay's reason, e.g. "full" when no
// match server of the relay, or of its fleet with --redis, has a free
// slot.
func runOpen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("open", "rewind open --relay URL [--max-players N] [--timeout D] [--key]", stderr)
	url := fs.String("relay", "", "the rooms relay's ws:// URL (as rewind relay prints it)")
	maxPlayers := fs.Int("max-players", 0, "cap the room at this many players (0: the match server's cap)")
	timeout := fs.Duration("timeout", 15*time.Second, "give up when the relay has not answered within this long")
	printKey := fs.Bool("key", false, "also print key=KEY after room=: the room's key, which ends it (roomclient.EndRoom, an end message with code and key, through any relay of the fleet)")
	if err := parseQuiet(fs, "open", args, stderr); err != nil {
		return err
	}
	switch {
	case *url == "":
		return usageError{Err: errors.New("--relay URL is required")}
	case *maxPlayers < 0 || *timeout <= 0:
		return usageError{Err: errors.New("--max-players must not be negative, --timeout must be positive")}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	r, err := roomclient.OpenRoomWithKey(ctx, *url, roomclient.OpenOptions{MaxPlayers: *maxPlayers})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "room=%s\n", r.Code)
	if *printKey {
		fmt.Fprintf(stdout, "key=%s\n", r.Key)
	}
	return nil
}
