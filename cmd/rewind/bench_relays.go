package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/internal/redisproc"
	"github.com/rewindnet/rewind/relay/roomdir"
)

func init() {
	registerBench("relays", "R `rewind relay --redis` processes sharing rooms: rooms open and close in a loop across them, one relay killed mid-run", runBenchRelays)
}

// benchRelaysKeys is what bench relays' help says of its output.
const benchRelaysKeys = `It starts --relays ` + "`rewind relay --redis URL --redis-ttl TTL`" + ` processes
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

// relaysFlags are bench relays' flags.
type relaysFlags struct {
	relays, rooms, workers int
	seconds, killAt        float64
	ttl                    time.Duration
	redis                  string
}

// relaysBench is one run of bench relays.
type relaysBench struct {
	f      relaysFlags
	urls   []string
	procs  []*relayProc
	alive  []int // indexes of the live relays
	dir    *roomdir.Redis
	d      benchDialers
	slots  []*benchRoom
	nIPs   int
	stderr io.Writer

	opened, closed atomic.Int64
	mu             sync.Mutex
	joins          []time.Duration
	errs           int
	firstErr       error
}

func runBenchRelays(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench relays", "rewind bench relays [--relays R] [--rooms N] [--seconds S] [--ttl D] [--redis URL]", stderr)
	var f relaysFlags
	fs.IntVar(&f.relays, "relays", 3, "relay processes (3 or more)")
	fs.IntVar(&f.rooms, "rooms", 1000, "rooms kept open, each with a host and a player")
	fs.IntVar(&f.workers, "workers", 32, "rooms opened or closed at once")
	fs.Float64Var(&f.seconds, "seconds", 20, "churn, in seconds (the kill's measurement not counted)")
	fs.Float64Var(&f.killAt, "kill-at", 0.5, "when the last relay is killed, as a fraction of --seconds")
	fs.DurationVar(&f.ttl, "ttl", 5*time.Second, "the relays' --redis-ttl")
	fs.StringVar(&f.redis, "redis", "", "the Redis the relays share (redis://HOST:PORT/DB; default: a redis-server of the bench's own, on a free port)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rewind bench relays [flags]\n\n%s\n\nflags:\n", benchRelaysKeys)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case f.relays < 3:
		return usageError{fmt.Errorf("--relays %d: want 3 or more (one is killed, and joins cross the others)", f.relays)}
	case f.rooms < 1 || f.workers < 1 || f.seconds <= 0:
		return usageError{errors.New("--rooms, --workers and --seconds must be positive")}
	case f.killAt < 0 || f.killAt > 1:
		return usageError{fmt.Errorf("--kill-at %g: want 0 to 1", f.killAt)}
	case f.ttl < 600*time.Millisecond:
		return usageError{fmt.Errorf("--ttl %v: want 600ms or more", f.ttl)}
	}
	if f.redis == "" {
		tmp, err := os.MkdirTemp("", "rewind-bench-redis")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		srv, err := redisproc.Start(tmp)
		if err != nil {
			return fmt.Errorf("bench relays: %w", err)
		}
		defer srv.Close()
		f.redis = srv.URL
	}
	dir, err := roomdir.NewRedis(context.Background(), f.redis, roomdir.RedisConfig{TTL: f.ttl})
	if err != nil {
		return err
	}
	defer dir.Close()
	b := &relaysBench{f: f, dir: dir, stderr: stderr, slots: make([]*benchRoom, f.rooms), nIPs: max(8, f.rooms/8)}
	defer b.stop()
	for i := range f.relays {
		p, err := startRelayProc(stderr, f.redis, f.ttl)
		if err != nil {
			return fmt.Errorf("bench relays: relay %d: %w", i, err)
		}
		b.procs, b.urls, b.alive = append(b.procs, p), append(b.urls, p.url), append(b.alive, i)
	}
	return b.run(stdout)
}

// stop kills the relays still running and closes every connection.
func (b *relaysBench) stop() {
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

func (b *relaysBench) run(stdout io.Writer) error {
	f := b.f
	start := time.Now()
	b.each(time.Time{}) // fill
	fill := time.Since(start)
	fmt.Fprintf(b.stderr, "bench relays: %d rooms open across %d relays in %v\n", f.rooms, f.relays, fill.Round(time.Millisecond))
	b.opened.Store(0)
	churn := time.Duration(f.seconds * float64(time.Second))
	first := time.Duration(float64(churn) * f.killAt)
	b.each(time.Now().Add(first))
	k := b.kill()
	fmt.Fprintf(b.stderr, "bench relays: relay %d killed: %v\n", f.relays-1, k)
	b.each(time.Now().Add(churn - first))
	b.mu.Lock()
	joins := slices.Clone(b.joins)
	errs, firstErr := b.errs, b.firstErr
	b.mu.Unlock()
	if firstErr != nil {
		fmt.Fprintf(b.stderr, "bench relays: %d errors, the first: %v\n", errs, firstErr)
	}
	slices.Sort(joins)
	pct := func(p float64) string {
		if len(joins) == 0 {
			return "0"
		}
		return fmt.Sprintf("%.2f", float64(joins[int(p*float64(len(joins)-1))])/1e6)
	}
	opened, closed := b.opened.Load(), b.closed.Load()
	held := k.goneS >= 0 && !k.outlived && k.untouched && k.dropped && k.early == 0 &&
		k.rejoinOK == k.rejoins && errs == 0
	keyValues(stdout, "relays", f.relays, "rooms", f.rooms, "ttl_s", f.ttl.Seconds(),
		"fill_s", fmt.Sprintf("%.2f", fill.Seconds()), "opened", opened, "closed", closed,
		"churn_s", fmt.Sprintf("%.1f", churn.Seconds()),
		"opened_per_s", fmt.Sprintf("%.0f", float64(opened)/churn.Seconds()),
		"closed_per_s", fmt.Sprintf("%.0f", float64(closed)/churn.Seconds()),
		"join_p50_ms", pct(0.5), "join_p99_ms", pct(0.99), "errors", errs,
		"killed_rooms", k.killed, "killed_rooms_gone_s", fmt.Sprintf("%.2f", k.goneS),
		"standins", k.standIns, "standins_dropped_s", fmt.Sprintf("%.2f", k.droppedS), "standins_dropped_early", k.early,
		"others", k.others, "others_untouched", k.untouched, "rejoins", fmt.Sprintf("%d/%d", k.rejoinOK, k.rejoins),
		"load1", loadAvg(), "held", held)
	return nil
}

// each runs the workers over the slots: with a zero until, each opens a
// room in its empty slots once (the fill); else, until then, each ends
// its slots' rooms in turn and opens a new one in their place.
func (b *relaysBench) each(until time.Time) {
	var wg sync.WaitGroup
	for w := range min(b.f.workers, len(b.slots)) {
		wg.Go(func() {
			for {
				for s := w; s < len(b.slots); s += b.f.workers {
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
func (b *relaysBench) open(s int) {
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

func (b *relaysBench) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs++
	if b.errs <= 5 {
		fmt.Fprintf(b.stderr, "bench relays: %s: %v\n", time.Now().Format("15:04:05.000"), err)
	}
	if b.firstErr == nil {
		b.firstErr = err
	}
}

// benchPoll is how often the kill's measurement polls.
const benchPoll = 20 * time.Millisecond

// killFigures are the kill's measurements.
type killFigures struct {
	killed, standIns, others int
	early                    int // stand-ins dropped before the kill
	goneS, droppedS          float64
	dropped, untouched       bool
	// outlived: a poll begun more than the TTL and one poll after the
	// kill still found some of its rooms (goneS, when the last poll
	// ended, also counts how late a loaded machine polled)
	outlived          bool
	rejoins, rejoinOK int
}

func (k killFigures) String() string {
	return fmt.Sprintf("%d rooms gone in %.2f s, %d stand-ins dropped in %.2f s (all: %v; %d before the kill), %d others untouched: %v, rejoins %d/%d",
		k.killed, k.goneS, k.standIns, k.droppedS, k.dropped, k.early, k.others, k.untouched, k.rejoinOK, k.rejoins)
}

// kill kills the last relay and measures what follows, the churn paused.
func (b *relaysBench) kill() killFigures {
	dead := b.f.relays - 1
	owners := map[string]string{}
	var gone, others, standIns []*benchRoom
	early := 0
	for _, r := range b.slots {
		switch {
		case r == nil:
		case r.hostRelay == dead:
			gone = append(gone, r)
		default:
			rec, _ := b.dir.Lookup(r.code, time.Now())
			owners[r.code] = rec.Owner
			others = append(others, r)
			if r.playerRelay == dead && r.host.leftAt.Load() != 0 {
				early++ // dropped before the kill: its relay was taken for dead
			} else if r.playerRelay == dead {
				standIns = append(standIns, r)
			}
		}
	}
	k := killFigures{killed: len(gone), standIns: len(standIns), early: early, others: len(others)}
	goneCodes := make([]string, len(gone))
	for i, r := range gone {
		goneCodes[i] = r.code
	}
	t0 := time.Now()
	fmt.Fprintf(b.stderr, "bench relays: %s: killing relay %d\n", t0.Format("15:04:05.000"), dead)
	b.procs[dead].kill()
	b.alive = slices.DeleteFunc(b.alive, func(i int) bool { return i == dead })
	var goneAt, droppedAt time.Duration = -1, -1
	for deadline := t0.Add(2*b.f.ttl + 2*time.Second); time.Now().Before(deadline) && (goneAt < 0 || droppedAt < 0); time.Sleep(benchPoll) {
		begun := time.Since(t0)
		if n, err := b.dir.Count(goneCodes); goneAt < 0 && err == nil {
			if n == 0 {
				goneAt = time.Since(t0)
			} else if begun > b.f.ttl+benchPoll {
				k.outlived = true
			}
		}
		if droppedAt < 0 {
			last := t0
			for _, r := range standIns {
				at := time.Unix(0, r.host.leftAt.Load())
				if at.Before(t0) {
					last = time.Time{}
					break
				}
				if at.After(last) {
					last = at
				}
			}
			if !last.IsZero() {
				droppedAt = last.Sub(t0)
			}
		}
	}
	k.goneS, k.droppedS, k.dropped = goneAt.Seconds(), droppedAt.Seconds(), droppedAt >= 0
	if goneAt < 0 {
		k.goneS = -1 // not within the wait
	}
	if droppedAt < 0 {
		k.droppedS = -1
	}
	k.untouched = true
	for _, r := range others {
		rec, ok := b.dir.Lookup(r.code, time.Now())
		if !ok || rec.Ended || rec.Owner != owners[r.code] || !r.host.quiet() || (r.playerRelay != dead && !r.player.quiet()) {
			fmt.Fprintf(b.stderr, "bench relays: room %s (relays %d, %d) touched: in directory %v %+v, host quiet %v, player quiet %v\n",
				r.code, r.hostRelay, r.playerRelay, ok, rec, r.host.quiet(), r.player.quiet())
			k.untouched = false
		}
	}
	for i, r := range others[:min(len(others), 100)] {
		k.rejoins++
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
			fmt.Fprintf(b.stderr, "bench relays: rejoin of %s through relay %d: %v\n", r.code, pr, err)
			continue
		}
		k.rejoinOK++
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
