package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind"
)

func init() {
	registerInterruptible("watch", "watch a match as a spectator, without a player slot: rewind watch (--connect HOST:PORT | --join CODE --relay URL[,URL…]) --headless [--until-tick T] [--delay D]", watch)
}

// watchUsage is rewind watch's synopsis.
const watchUsage = "rewind watch --headless --connect HOST:PORT [--until-tick T] [--delay D] [flags]\n       rewind watch --headless --join CODE --relay URL[,URL…] [--until-tick T] [--delay D] [flags]"

// watch is rewind watch: play's loop as a spectator (it asks for no
// slot, sends no input, shows only the verified ticks, --delay behind),
// ending with play's last line (verified_tick=T verified_hash=… first).
func watch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return playAs(ctx, true, args, stdout, stderr)
}

// matchEnded ends rewind play or watch when the server said the match
// ended on purpose (ReasonEnded): with
// --until-tick reached at the match's last tick, play's last line at it;
// else, once the session verified every tick up to the match's last
// (the server names it in its goodbye), the last line at that tick, even
// short of --until-tick (the match is over: there is nothing more to
// watch or play). A player or spectator that lacks ticks fails. When
// the operator ended the match (ReasonOperator: the console's end), the
// log's last line before play's last line says so, and a failure too.
func matchEnded(stdout io.Writer, loop *playLoop, e *rewind.EndedError, st rewind.Stats, s playSession, log *slog.Logger) error {
	what := "the match ended"
	if e.Operator {
		what = "the operator ended the match"
	}
	if !e.Complete() && !(loop.got && loop.until <= st.Verified) {
		return fmt.Errorf("%s (last tick %d, named: %t) before this session verified it: verified tick %d", what, e.Last, e.HasLast, e.Verified)
	}
	tick, hash := st.Verified, st.VerifiedHash
	if loop.got && loop.until <= st.Verified {
		tick, hash = loop.until, loop.hash
	} else if loop.until != 0 && e.Last < loop.until {
		log.Info("the match ended before --until-tick", "last_tick", e.Last, "until_tick", loop.until)
	}
	if e.Operator {
		log.Warn(what, "last_tick", e.Last, "verified_tick", e.Verified)
	}
	finalLine(stdout, tick, hash, st, s)
	return nil
}

// mostDelay is the longest delay a server of the default history (4 s:
// rewind serve's, a room's) holds a spectator back: three quarters of it.
const mostDelay = 3 * time.Second

// warnLongDelay warns when watch --delay is longer than a server of the
// default history grants: the server cuts it to three quarters of its
// history without telling the spectator, which then watches less far
// behind than asked (a tournament's broadcast delay would be shorter).
func warnLongDelay(log *slog.Logger, d time.Duration) {
	if d > mostDelay {
		log.Warn("--delay is longer than a server keeping the default 4 s of ticks holds a tick back (3 s, three quarters of its history): such a server (rewind serve, a room's host) cuts it to 3 s",
			"delay", d, "most", mostDelay)
	}
}
