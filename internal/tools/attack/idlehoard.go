package attack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/rooms"
)

// IdleSlotHoard: issue 43's item 3. An attacker opens every slot of an
// on-demand match server (16; short: 4) as hoarded_slots does, and joins
// each room with one idle player over the server's sealed UDP socket
// (its input never changes), the players spread over as few loopback
// addresses as the server's per-address cap lets in (8 an address;
// short: 2); one more player from the first address asks for a seat.
// The unused timeout is 10 s (short: 2 s). A lobby then asks for a room
// every half second. Before, a room whose match had started was never
// unused: every open was refused "full" for as long as the idle players
// stayed (issue 43: 50 s, 5× the timeout). It holds if the extra player
// was refused full and a lobby's open succeeded within 30 s (short: 10
// s) of the hoard.
func IdleSlotHoard(ctx context.Context, cfg Config) Result {
	r := Result{Name: "idle_slot_hoard"}
	t, err := startRelay(netutil.HTTPLimits{}, relay.RoomConfig{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	slots, perAddr := pick(cfg, 4, 16), pick(cfg, 2, rooms.DefaultPlayersPerAddr)
	unused := pick(cfg, 2*time.Second, 10*time.Second)
	srv, err := serveRooms(ctx, rooms.ServeOptions{Relay: t.url, MaxMatches: slots, OnDemand: true, UnusedTimeout: unused,
		PlayersPerAddr: perAddr, UDP: "127.0.0.1:0"})
	if err != nil {
		r.Err = err
		return r
	}
	defer srv.stop()
	udpAddr, _ := srv.s.UDPAddr()
	var peers []*rawPeer
	defer func() {
		for _, p := range peers {
			p.close()
		}
	}()
	codes, _, _, err := hoardOpens(ctx, slots, func(ip net.IP) (*rawPeer, error) {
		p, err := dialPeer(ctx, t.url, ip)
		if err == nil {
			peers = append(peers, p)
		}
		return p, err
	})
	if err != nil || len(codes) < slots {
		r.Err = fmt.Errorf("hoarding: %d of %d rooms: %v", len(codes), slots, err)
		return r
	}
	pctx, stopPlayers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopPlayers()
	for i, code := range codes {
		from := fmt.Sprintf("127.0.8.%d:0", 1+i/perAddr)
		if err := idlePlayer(pctx, &wg, udpAddr.String(), from, code); err != nil {
			r.Err = fmt.Errorf("idle player %d: %w", i, err)
			return r
		}
	}
	extra := idlePlayer(pctx, &wg, udpAddr.String(), "127.0.8.1:0", codes[0])
	hoarded := time.Now()
	limit := pick(cfg, 10*time.Second, 30*time.Second)
	opened := false
	for time.Since(hoarded) < limit+unused && ctx.Err() == nil {
		octx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := roomclient.OpenRoom(octx, t.url, roomclient.OpenOptions{})
		cancel()
		if err == nil {
			opened = true
			break
		}
		sleepCtx(ctx, 500*time.Millisecond)
	}
	after := time.Since(hoarded)
	r.add("slots", slots)
	r.add("idle_players", len(codes))
	r.add("players_per_addr", perAddr)
	r.add("extra_player_refused", errors.Is(extra, rewind.ErrRefused))
	r.add("unused_timeout_s", unused.Seconds())
	r.add("lobby_opened", opened)
	r.add("lobby_open_after_s", after.Seconds())
	r.Held = errors.Is(extra, rewind.ErrRefused) && opened && after <= limit
	return r
}

// idlePlayer joins room code at the UDP address addr from local (an
// address:port to bind) and plays an input that never changes until ctx
// ends. It returns once the player is in the match (nil), or was
// refused (an error wrapping rewind.ErrRefused).
func idlePlayer(ctx context.Context, wg *sync.WaitGroup, addr, local, code string) error {
	var o rewind.UDPOptions
	o.UDP.LocalAddr = local
	o.Client.Room = code
	joined := make(chan struct{})
	var once sync.Once
	o.OnUpdate = func(_ time.Time, st rewind.Stats) error {
		if st.Verified > 0 {
			once.Do(func() { close(joined) })
		}
		return nil
	}
	s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr, o)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		done <- s.Run(ctx)
		s.Close()
	}()
	select {
	case <-joined:
		return nil
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("not in the match within 10 s")
	}
}
