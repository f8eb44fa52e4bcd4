package relay

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// startFleetRelay serves a relay whose directory is the Redis at url.
func startFleetRelay(t *testing.T, url string) (*testRelay, *roomdir.Redis) {
	t.Helper()
	r, dir, _ := startFleetRelayWith(t, url, RoomConfig{}, roomdir.RedisConfig{})
	return r, dir
}

// startFleetRelayWith serves a relay with cfg whose directory is the Redis
// at url with rcfg. crash stops it as a relay process that dies would:
// its Redis connection first, so that it tells the others nothing.
func startFleetRelayWith(t *testing.T, url string, cfg RoomConfig, rcfg roomdir.RedisConfig) (r *testRelay, dir *roomdir.Redis, crash func()) {
	t.Helper()
	dir, err := roomdir.NewRedis(testCtx(t), url, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Directory = dir
	srv := NewRoomServer(cfg)
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, srv)
	hs := httptest.NewServer(mux)
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() {
			srv.Close()
			hs.Close()
			dir.Close()
		})
	})
	crash = func() {
		once.Do(func() {
			dir.Close()
			srv.Close()
			hs.Close()
		})
	}
	return &testRelay{url: "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path, srv: srv}, dir, crash
}

// flushDirectory waits until every directory write relay r queued after
// its replies so far (a failed join counted, a room removed or marked
// ended: the hub's later) has reached its directory: a test that reads
// Redis right after a reply calls it first.
func flushDirectory(t *testing.T, r *testRelay) {
	t.Helper()
	testutil.WaitUntil(testCtx(t), t, "the relay's directory writes", r.srv.hub.idle)
}

// TestRedisFleetJoin runs two relays sharing one Redis: a host registers
// at the first; players join through the second (their signaling goes
// over Redis pub/sub to the first) and exchange datagrams with the host
// over the data channels; a code no relay hosts is no_room at either; the
// host's end reaches the players at the second relay.
func TestRedisFleetJoin(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	r1, dir1 := startFleetRelay(t, url)
	r2, _ := startFleetRelay(t, url)
	ctx := testCtx(t)
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r1.url})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var players []*roomclient.RoomPlayer
	for range 2 {
		p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r2.url, Code: host.Code()})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		players = append(players, p)
	}
	buf := make([]byte, transport.MaxDatagram)
	for i, p := range players {
		if err := p.Conn().Send(p.Conn().RemoteAddr(), []byte(fmt.Sprintf("from %d", i))); err != nil {
			t.Fatal(err)
		}
		n, from := testutil.Recv(t, host.Conn(), buf)
		if from != webrtc.PeerAddr(p.ID()) || string(buf[:n]) != fmt.Sprintf("from %d", i) {
			t.Fatalf("host got %q from %s", buf[:n], from)
		}
		if err := host.Conn().Send(from, []byte("back")); err != nil {
			t.Fatal(err)
		}
		if n, _ := testutil.Recv(t, p.Conn(), buf); string(buf[:n]) != "back" {
			t.Fatalf("player %d got %q", i, buf[:n])
		}
	}
	if ids := players[0].ID() + players[1].ID(); ids != "p1p2" {
		t.Errorf("player ids %s, want p1 and p2 from the host's relay", ids)
	}
	if _, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r1.url, Code: "ZZZZZZ"}); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Errorf("join of no room at the first relay: %v", err)
	}
	if _, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r2.url, Code: "ZZZZZZ"}); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Errorf("join of no room at the second relay: %v", err)
	}
	host.End()
	for i, p := range players {
		testutil.WaitUntil(ctx, t, fmt.Sprintf("player %d at the second relay to hear the room end", i), func() bool {
			return errors.Is(p.Err(), roomproto.ErrRoomEnded)
		})
	}
	// The first relay marks the room ended in Redis once its lock is
	// released; its players may hear the end before that write.
	flushDirectory(t, r1)
	if rec, ok, err := dir1.Lookup(host.Code(), time.Now()); !ok || !rec.Ended {
		t.Fatalf("the ended room in the directory: %+v %v %v", rec, ok, err)
	}
	if _, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r2.url, Code: host.Code()}); !errors.Is(err, roomproto.ErrRoomEnded) {
		t.Errorf("join of the ended room at the second relay: %v, want room_ended", err)
	}
}
