// Package relays is `rewind-bench relays`: R `rewind relay --redis`
// processes sharing rooms through one Redis, rooms opening and closing
// in a loop across them, and one relay killed mid-run: how fast rooms
// churn and joins cross relays, and whether the killed relay's rooms
// leave the directory within the TTL while the others' stay untouched.
package relays

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/internal/testing/redisproc"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/relay/roomdir"
)

// Config is what bench relays runs.
type Config struct {
	// Relays is the relay processes (3 or more); Rooms the rooms kept
	// open; Workers the rooms opened or closed at once.
	Relays, Rooms, Workers int
	// Seconds is the churn; KillAt when the last relay is killed, as a
	// fraction of it.
	Seconds, KillAt float64
	// TTL is the relays' --redis-ttl.
	TTL time.Duration
	// Redis is the Redis URL the relays share ("": a redis-server of the
	// bench's own, on a free port).
	Redis string
	// Command runs the rewind command (its executable first): the
	// relays are `Command relay --redis ...`.
	Command []string
	// Log gets the progress lines and the relays' errors (nil: none).
	Log io.Writer
}

// Result is the run's figures.
type Result struct {
	// Config is what was run.
	Config Config
	// Fill is the time to open the first Rooms, Churn the churn.
	Fill, Churn time.Duration
	// Opened and Closed count the rooms opened and closed in the churn.
	Opened, Closed int64
	// Joins are the joins' times (join sent to joined), sorted.
	Joins []time.Duration
	// Errors counts the failed opens, closes and joins.
	Errors int
	// Kill is the kill's figures.
	Kill Kill
	// Held: the killed relay's rooms gone within the TTL, the others
	// untouched, every stand-in dropped, every rejoin and every open and
	// close done.
	Held bool
	// Load1 is the machine's 1-minute load average at the end.
	Load1 string
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	f, k := r.Config, r.Kill
	pct := func(p float64) string {
		if len(r.Joins) == 0 {
			return "0"
		}
		return fmt.Sprintf("%.2f", float64(r.Joins[int(p*float64(len(r.Joins)-1))])/1e6)
	}
	return []any{"relays", f.Relays, "rooms", f.Rooms, "ttl_s", f.TTL.Seconds(),
		"fill_s", fmt.Sprintf("%.2f", r.Fill.Seconds()), "opened", r.Opened, "closed", r.Closed,
		"churn_s", fmt.Sprintf("%.1f", r.Churn.Seconds()),
		"opened_per_s", fmt.Sprintf("%.0f", float64(r.Opened)/r.Churn.Seconds()),
		"closed_per_s", fmt.Sprintf("%.0f", float64(r.Closed)/r.Churn.Seconds()),
		"join_p50_ms", pct(0.5), "join_p99_ms", pct(0.99), "errors", r.Errors,
		"killed_rooms", k.Killed, "killed_rooms_gone_s", fmt.Sprintf("%.2f", k.GoneS),
		"standins", k.StandIns, "standins_dropped_s", fmt.Sprintf("%.2f", k.DroppedS), "standins_dropped_early", k.Early,
		"others", k.Others, "others_untouched", k.Untouched, "rejoins", fmt.Sprintf("%d/%d", k.RejoinOK, k.Rejoins),
		"load1", r.Load1, "held", r.Held}
}

// Run starts the relays (and a redis-server unless cfg.Redis), fills
// the rooms, churns, kills the last relay and measures.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Redis == "" {
		tmp, err := os.MkdirTemp("", "rewind-bench-redis")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(tmp)
		srv, err := redisproc.Start(tmp)
		if err != nil {
			return Result{}, fmt.Errorf("bench relays: %w", err)
		}
		defer srv.Close()
		cfg.Redis = srv.URL
	}
	dir, err := roomdir.NewRedis(ctx, cfg.Redis, roomdir.RedisConfig{TTL: cfg.TTL})
	if err != nil {
		return Result{}, err
	}
	defer dir.Close()
	b := &run{f: cfg, dir: dir, log: cfg.Log, slots: make([]*benchRoom, cfg.Rooms), nIPs: max(8, cfg.Rooms/8)}
	defer b.stop()
	for i := range cfg.Relays {
		p, err := startRelayProc(cfg.Command, cfg.Log, cfg.Redis, cfg.TTL)
		if err != nil {
			return Result{}, fmt.Errorf("bench relays: relay %d: %w", i, err)
		}
		b.procs, b.urls, b.alive = append(b.procs, p), append(b.urls, p.url), append(b.alive, i)
	}
	return b.measure(), nil
}

// measure fills the rooms, churns until the kill, kills, and churns on.
func (b *run) measure() Result {
	f := b.f
	r := Result{Config: f}
	start := time.Now()
	b.each(time.Time{}) // fill
	r.Fill = time.Since(start)
	fmt.Fprintf(b.log, "bench relays: %d rooms open across %d relays in %v\n", f.Rooms, f.Relays, r.Fill.Round(time.Millisecond))
	b.opened.Store(0)
	r.Churn = time.Duration(f.Seconds * float64(time.Second))
	first := time.Duration(float64(r.Churn) * f.KillAt)
	b.each(time.Now().Add(first))
	k := b.kill()
	fmt.Fprintf(b.log, "bench relays: relay %d killed: %v\n", f.Relays-1, k)
	b.each(time.Now().Add(r.Churn - first))
	b.mu.Lock()
	r.Joins = slices.Clone(b.joins)
	errs, firstErr := b.errs, b.firstErr
	b.mu.Unlock()
	if firstErr != nil {
		fmt.Fprintf(b.log, "bench relays: %d errors, the first: %v\n", errs, firstErr)
	}
	slices.Sort(r.Joins)
	r.Opened, r.Closed, r.Errors, r.Kill = b.opened.Load(), b.closed.Load(), errs, k
	r.Held = k.GoneS >= 0 && !k.Outlived && k.Untouched && k.Dropped && k.Early == 0 &&
		k.RejoinOK == k.Rejoins && errs == 0
	r.Load1 = bench.LoadAvg()
	return r
}

// run is one run of bench relays.
type run struct {
	f     Config
	urls  []string
	procs []*relayProc
	alive []int // indexes of the live relays
	dir   *roomdir.Redis
	d     benchDialers
	slots []*benchRoom
	nIPs  int
	log   io.Writer

	opened, closed atomic.Int64
	mu             sync.Mutex
	joins          []time.Duration
	errs           int
	firstErr       error
}

// stop kills the relays still running and closes every connection.
func (b *run) stop() {
	for _, r := range b.slots {
		if r != nil {
			r.host.close()
			r.player.close()
		}
	}
	for _, i := range b.alive {
		b.procs[i].kill()
	}
	b.alive = nil
}

// each runs the workers over the slots: with a zero until, each opens a
// room in its empty slots once (the fill); else, until then, each ends
// its slots' rooms in turn and opens a new one in their place.
func (b *run) each(until time.Time) {
	var wg sync.WaitGroup
	for w := range min(b.f.Workers, len(b.slots)) {
		wg.Go(func() {
			for {
				for s := w; s < len(b.slots); s += b.f.Workers {
					if !until.IsZero() && !time.Now().Before(until) {
						return
					}
					if r := b.slots[s]; r != nil && !until.IsZero() {
						b.slots[s] = nil
						if err := r.closeRoom(); err != nil {
							b.fail(err)
						} else {
							b.closed.Add(1)
						}
					}
					if b.slots[s] == nil {
						b.open(s)
					}
				}
				if until.IsZero() {
					return
				}
			}
		})
	}
	wg.Wait()
}

// open opens a room in slot s across the live relays.
func (b *run) open(s int) {
	n := len(b.alive)
	hr, pr := b.alive[s%n], b.alive[(s+1)%n]
	r, join, err := b.d.openRoom(b.urls, hr, pr, benchIP(s%b.nIPs), benchIP(b.nIPs+s%b.nIPs))
	if err != nil {
		b.fail(fmt.Errorf("open (relays %d, %d): %w", hr, pr, err))
		return
	}
	b.slots[s] = r
	b.opened.Add(1)
	b.mu.Lock()
	b.joins = append(b.joins, join)
	b.mu.Unlock()
}

func (b *run) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs++
	if b.errs <= 5 {
		fmt.Fprintf(b.log, "bench relays: %s: %v\n", time.Now().Format("15:04:05.000"), err)
	}
	if b.firstErr == nil {
		b.firstErr = err
	}
}

// benchPoll is how often the kill's measurement polls.
const benchPoll = 20 * time.Millisecond

// Kill is the kill's measurements.
type Kill struct {
	// Killed is the rooms hosted through the killed relay, StandIns the
	// players of the other relays' rooms who had joined through it,
	// Others the other relays' rooms.
	Killed, StandIns, Others int
	// Early counts the stand-ins dropped before the kill.
	Early int
	// GoneS is the seconds until the last killed room left the
	// directory, DroppedS until the last host heard its stand-in left.
	GoneS, DroppedS float64
	// Dropped is every stand-in dropped; Untouched every other room
	// still live with the same owner, its host and player undisturbed.
	Dropped, Untouched bool
	// Outlived: a poll begun more than the TTL and one poll after the
	// kill still found some of its rooms (GoneS, when the last poll
	// ended, also counts how late a loaded machine polled).
	Outlived bool
	// Rejoins is the new players tried through another live relay,
	// RejoinOK those that joined.
	Rejoins, RejoinOK int
}

// String formats the kill's figures for the log.
func (k Kill) String() string {
	return fmt.Sprintf("%d rooms gone in %.2f s, %d stand-ins dropped in %.2f s (all: %v; %d before the kill), %d others untouched: %v, rejoins %d/%d",
		k.Killed, k.GoneS, k.StandIns, k.DroppedS, k.Dropped, k.Early, k.Others, k.Untouched, k.RejoinOK, k.Rejoins)
}

// kill kills the last relay and measures what follows, the churn paused.
func (b *run) kill() Kill {
	dead := b.f.Relays - 1
	rs := b.sortRooms(dead)
	k := Kill{Killed: len(rs.gone), StandIns: len(rs.standIns), Early: rs.early, Others: len(rs.others)}
	goneCodes := make([]string, len(rs.gone))
	for i, r := range rs.gone {
		goneCodes[i] = r.code
	}
	t0 := time.Now()
	fmt.Fprintf(b.log, "bench relays: %s: killing relay %d\n", t0.Format("15:04:05.000"), dead)
	b.procs[dead].kill()
	b.alive = slices.DeleteFunc(b.alive, func(i int) bool { return i == dead })
	goneAt, droppedAt := b.waitKilled(t0, goneCodes, rs.standIns, &k)
	k.GoneS, k.DroppedS, k.Dropped = goneAt.Seconds(), droppedAt.Seconds(), droppedAt >= 0
	if goneAt < 0 {
		k.GoneS = -1 // not within the wait
	}
	if droppedAt < 0 {
		k.DroppedS = -1
	}
	k.Untouched = b.untouched(dead, rs)
	for i, r := range rs.others[:min(len(rs.others), 100)] {
		k.Rejoins++
		if b.rejoin(i, r) {
			k.RejoinOK++
		}
	}
	for s, r := range b.slots {
		if r != nil && r.hostRelay == dead {
			r.host.close()
			r.player.close()
			b.slots[s] = nil
		}
	}
	return k
}

// killRooms is the open rooms as the relay to kill sees them.
type killRooms struct {
	// gone is the rooms hosted through it, others the rest, standIns
	// those of others whose player joined through it and is still in.
	gone, others, standIns []*benchRoom
	// owners is the directory's owner of each of others, by code.
	owners map[string]string
	// early counts the players who joined through it and were dropped
	// before the kill: their relay was taken for dead.
	early int
}

// sortRooms sorts the open rooms by what killing relay dead does to them.
func (b *run) sortRooms(dead int) killRooms {
	rs := killRooms{owners: map[string]string{}}
	for _, r := range b.slots {
		switch {
		case r == nil:
		case r.hostRelay == dead:
			rs.gone = append(rs.gone, r)
		default:
			rec, _, _ := b.dir.Lookup(r.code, time.Now())
			rs.owners[r.code] = rec.Owner
			rs.others = append(rs.others, r)
			if r.playerRelay == dead && r.host.leftAt.Load() != 0 {
				rs.early++ // dropped before the kill: its relay was taken for dead
			} else if r.playerRelay == dead {
				rs.standIns = append(rs.standIns, r)
			}
		}
	}
	return rs
}

// waitKilled polls, every benchPoll for up to twice the TTL and 2 s after
// the kill at t0, until the killed rooms (goneCodes) left the directory
// and every stand-in's host heard it leave; it returns how long each
// took, -1 if not within the wait, and sets k.Outlived.
func (b *run) waitKilled(t0 time.Time, goneCodes []string, standIns []*benchRoom, k *Kill) (goneAt, droppedAt time.Duration) {
	goneAt, droppedAt = -1, -1
	for deadline := t0.Add(2*b.f.TTL + 2*time.Second); time.Now().Before(deadline) && (goneAt < 0 || droppedAt < 0); time.Sleep(benchPoll) {
		begun := time.Since(t0)
		if n, err := b.dir.Count(goneCodes); goneAt < 0 && err == nil {
			if n == 0 {
				goneAt = time.Since(t0)
			} else if begun > b.f.TTL+benchPoll {
				k.Outlived = true
			}
		}
		if droppedAt < 0 {
			droppedAt = lastLeft(t0, standIns)
		}
	}
	return goneAt, droppedAt
}

// lastLeft is how long after t0 the last of standIns' hosts heard its
// player leave, or -1 if one has not yet (or heard it before t0).
func lastLeft(t0 time.Time, standIns []*benchRoom) time.Duration {
	last := t0
	for _, r := range standIns {
		at := time.Unix(0, r.host.leftAt.Load())
		if at.Before(t0) {
			return -1
		}
		if at.After(last) {
			last = at
		}
	}
	return last.Sub(t0)
}

// untouched reports whether every room not hosted through relay dead is
// still in the directory, not ended, with the same owner, its host (and
// its player, unless a stand-in) undisturbed; it logs each that is not.
func (b *run) untouched(dead int, rs killRooms) bool {
	ok := true
	for _, r := range rs.others {
		rec, in, _ := b.dir.Lookup(r.code, time.Now())
		if !in || rec.Ended || rec.Owner != rs.owners[r.code] || !r.host.quiet() || (r.playerRelay != dead && !r.player.quiet()) {
			fmt.Fprintf(b.log, "bench relays: room %s (relays %d, %d) touched: in directory %v %+v, host quiet %v, player quiet %v\n",
				r.code, r.hostRelay, r.playerRelay, in, rec, r.host.quiet(), r.player.quiet())
			ok = false
		}
	}
	return ok
}

// rejoin joins a new player (the i-th) to r through a live relay other
// than its host's and reports whether the join went through (logging
// why not).
func (b *run) rejoin(i int, r *benchRoom) bool {
	pr := b.alive[0]
	if pr == r.hostRelay {
		pr = b.alive[1]
	}
	p, err := b.d.dial(b.urls[pr], benchIP(2*b.nIPs+i%b.nIPs))
	if err == nil {
		err = p.send(benchMsg{Type: "join", V: 1, Code: r.code})
		if err == nil {
			_, err = p.expect("joined")
		}
		if err == nil {
			_, err = r.host.expect("player")
		}
		p.close()
	}
	if err != nil {
		fmt.Fprintf(b.log, "bench relays: rejoin of %s through relay %d: %v\n", r.code, pr, err)
		return false
	}
	return true
}

// Keys is what bench relays' help says of its output.
const Keys = `It starts --relays ` + "`rewind relay --redis URL --redis-ttl TTL`" + ` processes
(and a redis-server of its own unless --redis is given), and keeps --rooms
rooms open: room i is hosted through relay i mod R and joined by one
player through relay i+1 mod R, so every join crosses relays (a Redis
lookup, the join forwarded over pub/sub to the host's relay and the answer
back). Hosts and players are bare clients of the rooms protocol: hosts
answer pings, players report their data channel open at once; no WebRTC.
Then, for --seconds, workers end rooms (the host's end, the player hearing
it through its relay) and open new ones in their place. At --kill-at of
the run the last relay is killed (SIGKILL) and the churn pauses while the
rest is measured: killed_rooms (rooms hosted through it) and
killed_rooms_gone_s (until the last left the directory, polled every
20 ms; the TTL bounds it), standins (players of the other relays' rooms
who had joined through it) and standins_dropped_s (until the last host
heard it left; standins_dropped_early: those whose host had heard it
before the kill, the relay taken for dead while it lived), others (the other relays' rooms) and others_untouched
(each still live in the directory with the same owner, its host and its
other-relay player undisturbed), rejoins (new players joining up to 100
of them through another live relay: ok/tried). Then the churn goes on
over the live relays. The one line: relays, rooms, ttl_s, fill_s (opening
the first --rooms), opened, closed, churn_s, opened_per_s, closed_per_s
(during the churn), join_p50_ms, join_p99_ms (join sent to joined, every
join), errors, the kill's figures, load1, and held (the killed relay's
rooms gone within the TTL, the others untouched, every stand-in dropped,
every rejoin and every open and close done; gone within the TTL: no poll
begun more than the TTL and a poll after the kill found one).`
