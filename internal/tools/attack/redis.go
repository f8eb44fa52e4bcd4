package attack

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/internal/testing/redisproc"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// redisFleet is two relays on 127.0.0.1 sharing a private redis-server
// (internal/testing/redisproc; its files in a temporary directory), with a room
// hosted at the first.
type redisFleet struct {
	rs     *redisproc.Server
	tmp    string
	relays [2]*relayTarget
	dirs   []*roomdir.Redis
	host   *roomclient.HostedRoom
}

// startRedisFleet starts the fleet; redisproc.ErrNotInstalled without a
// redis-server.
func startRedisFleet(ctx context.Context) (f *redisFleet, err error) {
	f = &redisFleet{}
	defer func() {
		if err != nil {
			f.stop()
		}
	}()
	if f.tmp, err = os.MkdirTemp("", "rewind-attack-redis"); err != nil {
		return f, err
	}
	if f.rs, err = redisproc.Start(f.tmp); err != nil {
		return f, err
	}
	for i := range f.relays {
		dir, err := roomdir.NewRedis(ctx, f.rs.URL, roomdir.RedisConfig{})
		if err != nil {
			return f, err
		}
		f.dirs = append(f.dirs, dir)
		if f.relays[i], err = startRelay(netutil.HTTPLimits{}, relay.RoomConfig{Directory: dir}); err != nil {
			return f, err
		}
	}
	f.host, err = roomclient.HostRoom(ctx, roomclient.HostOptions{URL: f.relays[0].url})
	return f, err
}

func (f *redisFleet) stop() {
	if f.host != nil {
		f.host.Close()
	}
	for _, t := range f.relays {
		if t != nil {
			t.stop()
		}
	}
	for _, d := range f.dirs {
		d.Close()
	}
	if f.rs != nil {
		f.rs.Close()
	}
	if f.tmp != "" {
		os.RemoveAll(f.tmp)
	}
}

// refusal reports whether askFrom's answer a is no success: an error
// code, or no answer at all.
func refusal(a string) bool {
	switch a {
	case roomproto.MsgHosted, roomproto.MsgJoined, roomproto.MsgFound, roomproto.MsgServing, roomproto.MsgOpened:
		return false
	}
	return true
}

// askFrom sends msg to the relay at url on a new connection from ip and
// returns the answer's type, or its error code.
func askFrom(ctx context.Context, url string, ip net.IP, msg string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := dialFrom(ctx, url, ip)
	if err != nil {
		return "dial_failed"
	}
	defer c.CloseNow()
	m, err := wsAsk(ctx, c, msg)
	switch {
	case err != nil:
		return "no_answer"
	case m.Type == roomproto.MsgError:
		return m.Error
	}
	return m.Type
}

// RedisKilled: issue 30's item 11. Redis is killed under two relays while
// a room is hosted at the first. Before, joins through either relay
// failed with the misleading "no room … check the code". It holds if a
// join through the other relay is told the directory is unavailable and
// one through the room's own relay joins (it takes the room on its own
// word).
func RedisKilled(ctx context.Context, cfg Config) Result {
	r := Result{Name: "redis_killed"}
	f, err := startRedisFleet(ctx)
	if err != nil {
		r.Err = err
		return r
	}
	defer f.stop()
	join := fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, f.host.Code())
	f.rs.Close()
	start := time.Now()
	other := askFrom(ctx, f.relays[1].url, net.IPv4(127, 0, 6, 1), join)
	own := askFrom(ctx, f.relays[0].url, net.IPv4(127, 0, 6, 2), join)
	r.add("join_other_relay", other)
	r.add("join_own_relay", own)
	r.add("seconds", time.Since(start).Seconds())
	r.Held = other == roomproto.ErrCodeUnavailable && own == roomproto.MsgJoined
	return r
}

// RedisRestartedEmpty: issue 30's item 2. Redis is restarted empty under
// two relays while a room is hosted at the first; meanwhile an attacker
// from its own address tries to host the room's code and to claim it
// with another key through the other relay, over and over. Before, the
// room never came back and the attacker's host of its code was the next
// player's match. It holds if a player joining through the other relay
// every 300 ms got in within 5 s, and the attacker got the code never.
func RedisRestartedEmpty(ctx context.Context, cfg Config) Result {
	r := Result{Name: "redis_restarted_empty"}
	f, err := startRedisFleet(ctx)
	if err != nil {
		r.Err = err
		return r
	}
	defer f.stop()
	code := f.host.Code()
	if err := f.rs.Restart(); err != nil {
		r.Err = err
		return r
	}
	start := time.Now()
	actx, cancel := context.WithCancel(ctx)
	var tries, won atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		attacks := []string{fmt.Sprintf(`{"type":"host","v":1,"code":%q}`, code),
			fmt.Sprintf(`{"type":"claim","v":1,"code":%q,"key":"%032x"}`, code, 7)}
		for i := 0; actx.Err() == nil; i++ {
			tries.Add(1)
			if a := askFrom(actx, f.relays[1].url, net.IPv4(127, 0, 7, 1), attacks[i%2]); !refusal(a) {
				won.Add(1) // hosted, or any answer but an error: the code is the attacker's
			}
		}
	})
	joinedAfter, joins := playerRejoins(ctx, f.relays[1].url, code, 20*time.Second)
	sleepCtx(ctx, time.Second) // the attacker goes on a moment after
	cancel()
	wg.Wait()
	r.add("joins", joins)
	r.add("joined", joinedAfter >= 0)
	r.add("joined_after_s", joinedAfter.Seconds())
	r.add("attacker_tries", tries.Load())
	r.add("attacker_got_code", won.Load())
	r.add("seconds", time.Since(start).Seconds())
	r.Held = joinedAfter >= 0 && joinedAfter <= 5*time.Second && won.Load() == 0
	return r
}

// playerRejoins joins code through url from 127.0.6.3 every 300 ms until
// it is joined or limit passes: how long it took (-1: never) and the
// joins asked.
func playerRejoins(ctx context.Context, url, code string, limit time.Duration) (time.Duration, int) {
	join := fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code)
	start := time.Now()
	for n := 1; time.Since(start) < limit && ctx.Err() == nil; n++ {
		if askFrom(ctx, url, net.IPv4(127, 0, 6, 3), join) == roomproto.MsgJoined {
			return time.Since(start), n
		}
		sleepCtx(ctx, 300*time.Millisecond)
	}
	return -1, 0
}
