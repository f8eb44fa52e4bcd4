package attack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// RoomKeyLurker: issue 43's item 1. A --host-migration room of four
// players: two honest ones, one who leaves and one whom the host's
// operator removes; both keep the room key they were handed. The
// removed player tries to end the room with it; the one who left joins
// the room again at the relay as a joiner that never opens a data
// channel and, the moment the relay says the host is lost, claims the
// room with it (before: it hosted the room and served no one; both
// honest players stopped, migrations=0). The host is then closed, 4 s
// after it rotated the key (past the relay's RekeyGrace and a ping). It
// holds if the end and the claim are refused and both honest players
// migrate once and verify the same hash at a tick 10 s (short: 2 s)
// past the old host's last.
func RoomKeyLurker(ctx context.Context, cfg Config) Result {
	r := Result{Name: "room_key_lurker"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	h, err := rooms.Host(ctx, &testgame.Game{}, rooms.HostOptions{Relay: t.url, HostMigration: true,
		Server: server.Config{StartPlayers: 4}})
	if err != nil {
		r.Err = err
		return r
	}
	hostCtx, stopHost := context.WithCancel(ctx)
	go h.Run(hostCtx)
	defer h.Close()
	defer stopHost()
	seats, err := joinSeats(ctx, t.url, h.Code(), 4)
	defer closeSeats(seats)
	if err != nil {
		r.Err = err
		return r
	}
	if !waitUntil(ctx, 30*time.Second, func() bool { return allVerified(seats, 60) }) {
		r.Err = errors.New("the match did not reach tick 60")
		return r
	}
	old := h.Room().Key() // what every player was handed
	leaver, removed := seats[2], seats[3]
	rid, _ := removed.s.Player()
	leaver.s.Close()
	if err := h.Host.Remove(rid); err != nil {
		r.Err = err
		return r
	}
	left := waitUntil(ctx, 10*time.Second, func() bool { return h.Host.Departures() >= 2 })
	sleepCtx(ctx, time.Second) // the host rotates the key within 250 ms and a round trip
	rotated := left && h.Room().Key() != old
	// Later: past the relay's RekeyGrace (2 s) and a ping interval (1 s),
	// within which a host lost just after its rotation leaves the
	// previous key good for claims (its players may not hold the new one
	// yet).
	sleepCtx(ctx, 4*time.Second)
	r.add("key_rotated", rotated)
	endAnswer := askRelay(ctx, t.url, fmt.Sprintf(`{"type":"end","code":%q,"key":%q}`, h.Code(), old))
	r.add("removed_end", endAnswer)
	lurker, _, err := wsJoin(ctx, t.url, h.Code())
	if err != nil {
		r.Err = fmt.Errorf("lurker join: %w", err)
		return r
	}
	defer lurker.CloseNow()
	claim := make(chan string, 1)
	go func() { claim <- lurk(ctx, lurker, h.Code(), old) }()
	sleepCtx(ctx, 200*time.Millisecond)
	honest := seats[:2]
	stopHost()
	h.Close()
	lastOld := h.Stats().Match.Tick
	claimAnswer := <-claim
	r.add("lurker_claim", claimAnswer)
	target := lastOld + uint32(pick(cfg, 120, 600))
	reached := waitUntil(ctx, 60*time.Second, func() bool { return allVerified(honest, target) })
	a, aok := honest[0].hash(target)
	b, bok := honest[1].hash(target)
	r.add("old_host_last_tick", lastOld)
	r.add("target_tick", target)
	r.add("honest_reached", reached)
	r.add("one_hash", aok && bok && a == b)
	r.add("migrations", fmt.Sprintf("%d,%d", honest[0].s.Migrations(), honest[1].s.Migrations()))
	r.Held = rotated && endAnswer == "bad_key" && claimAnswer == "bad_key" &&
		reached && aok && bok && a == b && honest[0].s.Migrations() == 1 && honest[1].s.Migrations() == 1
	return r
}

// keySeat is a player of RoomKeyLurker: its session and the hashes it
// verified.
type keySeat struct {
	s      *rewind.Session[testgame.Input]
	mu     sync.Mutex
	hashes map[uint32]uint64
}

func (k *keySeat) verified(tick uint32, hash uint64) {
	k.mu.Lock()
	k.hashes[tick] = hash
	k.mu.Unlock()
}

func (k *keySeat) hash(tick uint32) (uint64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h, ok := k.hashes[tick]
	return h, ok
}

// joinSeats joins n bot players to the room code, each running.
func joinSeats(ctx context.Context, url, code string, n int) ([]*keySeat, error) {
	var seats []*keySeat
	for i := range n {
		k := &keySeat{hashes: map[uint32]uint64{}}
		s, err := rooms.Join(ctx, &testgame.Game{}, url, code, rooms.JoinOptions{HostMigration: true,
			Options: rewind.Options{Client: rewind.ClientConfig{OnVerified: k.verified}}})
		if err != nil {
			return seats, err
		}
		s.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), u) })
		k.s = s
		go s.Run(ctx)
		seats = append(seats, k)
	}
	return seats, nil
}

func closeSeats(seats []*keySeat) {
	for _, k := range seats {
		k.s.Close()
	}
}

// allVerified reports whether every seat verified tick.
func allVerified(seats []*keySeat, tick uint32) bool {
	for _, k := range seats {
		if k.s.Stats().Verified < tick {
			return false
		}
	}
	return true
}

// waitUntil polls ok every 20 ms for up to d.
func waitUntil(ctx context.Context, d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		sleepCtx(ctx, 20*time.Millisecond)
	}
	return true
}

// askRelay sends msg on a new relay connection and returns the answer's
// type, or its error code.
func askRelay(ctx context.Context, url, msg string) string {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return "dial"
	}
	defer c.CloseNow()
	m, err := wsAsk(ctx, c, msg)
	if err != nil {
		return "closed"
	}
	if m.Error != "" {
		return m.Error
	}
	return m.Type
}

// lurk waits on c, a joiner of room code that never opens its data
// channel, for the relay's host_lost, claims the room with key at once,
// and returns the answer ("hosted" when it took the room over, or the
// error code).
func lurk(ctx context.Context, c *websocket.Conn, code, key string) string {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return "closed"
		}
		var m wsMsg
		if json.Unmarshal(b, &m) != nil || m.Type != "host_lost" {
			continue
		}
		m, err = wsAsk(ctx, c, fmt.Sprintf(`{"type":"claim","v":1,"code":%q,"key":%q}`, code, key))
		if err != nil {
			return "closed"
		}
		if m.Error != "" {
			return m.Error
		}
		return m.Type
	}
}
