package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func init() {
	register("watch", "watch a match as a spectator, without a player slot: rewind watch (--connect HOST:PORT | --join CODE --relay URL) --headless [--until-tick T] [--delay D]", runWatch)
}

// watchUsage is rewind watch's synopsis.
const watchUsage = "rewind watch --headless --connect HOST:PORT [--until-tick T] [--delay D] [flags]\n       rewind watch --headless --join CODE --relay URL [--until-tick T] [--delay D] [flags]"

// runWatch is rewind watch: play's loop as a spectator (it asks for no
// slot, sends no input, shows only the verified ticks, --delay behind),
// ending with play's last line (verified_tick=T verified_hash=… first).
func runWatch(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return playAs(ctx, true, args, stdout, stderr)
}
