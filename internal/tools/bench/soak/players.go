package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/tools/cputime"
)

// A player process of bench soak runs the real players of some rooms:
// rewind sessions over UDP that simulate the light test game, predict,
// roll back and check every verified tick's hash against the server's.
// Once told to churn (a "churn" line on its standard input), each player
// leaves after a random stay and comes back after a random absence with
// its cookie, which must give it back its player id; at least one
// player of each room always stays, so that the match goes on and the
// cookies stay valid. A "settle" line stops the churn and brings every
// player back; the end of its standard input ends the process. Every
// second, and once at the end, it prints its counters on standard
// output as one `soak ...` key=value line (soakCounts).

// soakCounts are a player process's counters, cumulative.
type soakCounts struct {
	players, present        int
	verified, desyncs       uint64
	rejoins, kept, lost     uint64
	failed, dropped, leaves uint64
	cpuMS                   uint64 // the process's CPU time so far
}

func (c soakCounts) line() string {
	return fmt.Sprintf("soak players=%d present=%d verified=%d desyncs=%d rejoins=%d kept=%d lost=%d rejoin_failed=%d dropped=%d leaves=%d cpu_ms=%d",
		c.players, c.present, c.verified, c.desyncs, c.rejoins, c.kept, c.lost, c.failed, c.dropped, c.leaves, c.cpuMS)
}

// soakPlayerState is where a player of a player process is.
type soakPlayerState int

const (
	soakJoining soakPlayerState = iota // dialing (first join or a rejoin)
	soakPlaying
	soakAway
)

// soakPlayer is one player of a player process.
type soakPlayer struct {
	room   string
	first  bool // the first player of the process's first room (the plants)
	rng    *rand.Rand
	state  soakPlayerState
	id     rewind.PlayerID
	hasID  bool
	cookie [16]byte
	s      *rewind.Session[testgame.Input]
	stop   context.CancelFunc
	done   chan error // the session's Run
	leave  time.Time  // when it leaves (playing) or comes back (away)
	played atomic.Uint64
}

// soakJoin is the outcome of a player's dial.
type soakJoin struct {
	p      *soakPlayer
	s      *rewind.Session[testgame.Input]
	stop   context.CancelFunc
	done   chan error
	id     rewind.PlayerID
	rejoin bool
	err    error
}

// soakProc is a player process.
type soakProc struct {
	server   string
	plant    string
	stay     [2]time.Duration // a stay's bounds
	away     [2]time.Duration // an absence's bounds
	players  []*soakPlayer
	joins    chan soakJoin
	churn    bool
	settle   bool
	planted  bool // the cookie plant was sent
	counts   soakCounts
	verified atomic.Uint64
	desyncs  atomic.Uint64
	stderr   io.Writer
	wg       sync.WaitGroup
}

// RunPlayers is a player process of bench soak: f.Players per room
// of f.Rooms against f.Server (the lossy forwarder's address),
// seeded by f.PlayerSeed, staying and away for f.Stay and f.Away.
func RunPlayers(ctx context.Context, f Config, stdin io.Reader, stdout, stderr io.Writer) error {
	rooms := strings.Split(f.Rooms, ",")
	p := &soakProc{
		server: f.Server, plant: f.Plant, stderr: stderr,
		stay: f.Stay, away: f.Away,
		joins: make(chan soakJoin, len(rooms)*f.Players),
	}
	for i, r := range rooms {
		for k := range f.Players {
			p.players = append(p.players, &soakPlayer{
				room: r, first: i == 0 && k == 0,
				rng: rand.New(rand.NewPCG(f.PlayerSeed, uint64(i*64+k))),
			})
		}
	}
	p.counts.players = len(p.players)
	cmds := make(chan string, 4)
	go func() { // ends with the process: a read of stdin cannot be interrupted
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			cmds <- sc.Text()
		}
		close(cmds)
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		p.close()
		p.count()
		fmt.Fprintln(stdout, p.counts.line())
	}()
	now := time.Now()
	for i, pl := range p.players {
		pl.leave = now.Add(time.Duration(i) * 20 * time.Millisecond) // a join each 20 ms
		pl.state = soakAway
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	report := time.NewTicker(time.Second)
	defer report.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-cmds:
			if !ok {
				return nil
			}
			p.command(c)
			p.count()
			fmt.Fprintln(stdout, p.counts.line())
		case j := <-p.joins:
			p.joined(j)
		case now := <-tick.C:
			p.step(ctx, now)
		case <-report.C:
			p.count()
			fmt.Fprintln(stdout, p.counts.line())
		}
	}
}

// command takes a line of the process's standard input: churn (leave
// and rejoin) or settle (every player back, no more leaving).
func (p *soakProc) command(c string) {
	switch c {
	case "churn":
		p.churn, p.settle = true, false
		for _, pl := range p.players {
			pl.leave = time.Now().Add(p.draw(pl, p.stay))
			if pl.first && strings.Contains(p.plant, "cookie") {
				pl.leave = time.Now() // the planted rejoin comes at once
			}
		}
	case "settle":
		p.churn, p.settle = false, true
	}
}

// close ends every session, waits for the dials under way and closes
// the sessions they made. The process's context has ended.
func (p *soakProc) close() {
	for _, pl := range p.players {
		if pl.s != nil {
			pl.s.Close()
		}
	}
	p.wg.Wait()
	for len(p.joins) > 0 {
		if j := <-p.joins; j.s != nil {
			j.stop()
			j.s.Close()
		}
	}
}

// draw returns a random duration within bounds, from pl's generator.
func (p *soakProc) draw(pl *soakPlayer, bounds [2]time.Duration) time.Duration {
	return bounds[0] + time.Duration(pl.rng.Int64N(int64(bounds[1]-bounds[0])+1))
}

// count refreshes the counters kept elsewhere.
func (p *soakProc) count() {
	p.counts.verified, p.counts.desyncs = p.verified.Load(), p.desyncs.Load()
	p.counts.cpuMS = uint64(cputime.Process().Milliseconds())
	p.counts.present = 0
	for _, pl := range p.players {
		if pl.state == soakPlaying {
			p.counts.present++
		}
	}
}

// step moves every player along at now: a session that ended by itself
// counts as dropped; a player whose stay is over leaves (if its room
// keeps one other player); one whose absence is over dials back.
func (p *soakProc) step(ctx context.Context, now time.Time) {
	for _, pl := range p.players {
		switch pl.state {
		case soakPlaying:
			select {
			case err := <-pl.done:
				p.counts.dropped++
				fmt.Fprintf(p.stderr, "bench soak: room %s player %d dropped: %v\n", pl.room, pl.id, err)
				pl.stop()
				pl.s.Close()
				pl.s, pl.state, pl.leave = nil, soakAway, now
				continue
			default:
			}
			if p.churn && !now.Before(pl.leave) && pl.played.Load() >= 30 && p.othersPlaying(pl) {
				pl.cookie, _ = pl.s.Cookie()
				pl.s.Close()
				pl.stop()
				<-pl.done
				p.counts.leaves++
				pl.s, pl.state, pl.leave = nil, soakAway, now.Add(p.draw(pl, p.away))
			}
		case soakAway:
			if now.Before(pl.leave) && !p.settle {
				continue
			}
			pl.state = soakJoining
			corrupt := pl.hasID && pl.first && strings.Contains(p.plant, "cookie") && !p.planted
			p.planted = p.planted || corrupt
			p.wg.Add(1)
			go p.dial(ctx, pl, pl.hasID, pl.cookie, corrupt)
		}
	}
}

// othersPlaying reports whether another player of pl's room is playing.
func (p *soakProc) othersPlaying(pl *soakPlayer) bool {
	for _, q := range p.players {
		if q != pl && q.room == pl.room && q.state == soakPlaying {
			return true
		}
	}
	return false
}

// dial connects pl (with its cookie when rejoin, one bit of it flipped
// when corrupt) and waits for its welcome; the outcome goes to p.joins.
func (p *soakProc) dial(ctx context.Context, pl *soakPlayer, rejoin bool, cookie [16]byte, corrupt bool) {
	defer p.wg.Done()
	j := soakJoin{p: pl, rejoin: rejoin}
	defer func() { p.joins <- j }()
	var g rewind.Game[testgame.Input] = &testgame.Game{}
	if pl.first && strings.Contains(p.plant, "desync") {
		g = &testgame.MapOrder{} // a determinism bug: its hashes must disagree
	}
	if corrupt {
		cookie[0] ^= 1 // a cookie the server never gave: the id is lost
	}
	opts := rewind.UDPOptions{UDP: rewind.UDPConfig{HandshakeTimeout: 15 * time.Second}}
	opts.Client.Room = pl.room
	opts.Client.ServerTimeout = 10 * time.Second
	if rejoin {
		opts.Client.Cookie = cookie[:]
	}
	pl.played.Store(0)
	opts.Client.OnVerified = func(uint32, uint64) {
		pl.played.Add(1)
		p.verified.Add(1)
	}
	opts.Client.OnDesync = func(tick uint32, ours, theirs uint64) {
		p.desyncs.Add(1)
		fmt.Fprintf(p.stderr, "bench soak: room %s: desync at tick %d: ours %016x, server %016x\n", pl.room, tick, ours, theirs)
	}
	s, err := rewind.ConnectUDP(ctx, g, p.server, opts)
	if err != nil {
		j.err = err
		return
	}
	s.SetInputFunc(func(t uint32) testgame.Input {
		id, _ := s.Player()
		return testgame.Bot(id, t)
	})
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(rctx) }()
	wait := time.NewTicker(10 * time.Millisecond)
	defer wait.Stop()
	for {
		if id, ok := s.Player(); ok {
			j.s, j.stop, j.done, j.id = s, stop, done, id
			return
		}
		select {
		case err := <-done:
			if err == nil {
				err = ctx.Err()
			}
			j.err = err
			stop()
			s.Close()
			return
		case <-wait.C:
		}
	}
}

// joined takes the outcome of a dial: a welcome (a rejoin's id checked
// against the player's), a refusal (a rejoin refused for its cookie is a
// lost id) or a failure (tried again later).
func (p *soakProc) joined(j soakJoin) {
	pl := j.p
	now := time.Now()
	if j.err != nil {
		var re *rewind.RefusedError
		if j.rejoin && errors.As(j.err, &re) && re.Reason == rewind.ReasonCookie {
			p.counts.rejoins++
			p.counts.lost++
			fmt.Fprintf(p.stderr, "bench soak: room %s player %d: rejoin refused for its cookie (id lost)\n", pl.room, pl.id)
		} else if !errors.Is(j.err, context.Canceled) {
			p.counts.failed++
			fmt.Fprintf(p.stderr, "bench soak: room %s: join failed: %v\n", pl.room, j.err)
		}
		pl.state, pl.leave = soakAway, now.Add(time.Second)
		return
	}
	if j.rejoin {
		p.counts.rejoins++
		if j.id == pl.id {
			p.counts.kept++
		} else {
			p.counts.lost++
			fmt.Fprintf(p.stderr, "bench soak: room %s: player %d rejoined as %d (id lost)\n", pl.room, pl.id, j.id)
		}
	}
	pl.id, pl.hasID = j.id, true
	pl.s, pl.stop, pl.done = j.s, j.stop, j.done
	pl.state, pl.leave = soakPlaying, now.Add(p.draw(pl, p.stay))
}
