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

	"github.com/rewindnet/rewind/internal/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// TestRedisRoomDirectory: claims are exclusive across directories of one
// Redis, an ended room is remembered, a live room whose owner stops
// refreshing it expires within the TTL while a refreshed one stays.
func TestRedisRoomDirectory(t *testing.T) {
	url := testutil.StartRedis(t)
	ctx := testCtx(t)
	cfg := RedisConfig{TTL: 600 * time.Millisecond, Remember: time.Minute}
	a, err := NewRedisRoomDirectory(ctx, url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedisRoomDirectory(ctx, url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	if err := a.Claim(RoomRecord{Code: "AAAAAA", Key: "k1"}, now); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(RoomRecord{Code: "AAAAAA", Key: "k2"}, now); !errors.Is(err, roomproto.ErrCodeTaken) {
		t.Fatalf("second claim: %v, want roomproto.ErrCodeTaken", err)
	}
	rec, ok := b.Lookup("AAAAAA", now)
	if !ok || rec.Key != "k1" || rec.Owner != a.Self() || rec.Ended {
		t.Fatalf("lookup at b: %+v, %v", rec, ok)
	}
	if err := b.Claim(RoomRecord{Code: "BBBBBB", Key: "k3"}, now); err != nil {
		t.Fatal(err)
	}
	a.End("AAAAAA", now)
	if rec, ok := b.Lookup("AAAAAA", now); !ok || !rec.Ended || rec.EndedAt.UnixMilli() != now.UnixMilli() {
		t.Fatalf("ended room: %+v, %v", rec, ok)
	}
	if err := b.Claim(RoomRecord{Code: "AAAAAA"}, now); !errors.Is(err, roomproto.ErrCodeTaken) {
		t.Fatalf("claim of a remembered ended code: %v", err)
	}
	// a refreshes CCCCCC; nobody refreshes BBBBBB (its relay died).
	if err := a.Claim(RoomRecord{Code: "CCCCCC", Key: "k4"}, now); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := a.Refresh([]string{"CCCCCC"}); err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Lookup("BBBBBB", now); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an unrefreshed room did not expire")
		}
		time.Sleep(a.RefreshEvery())
	}
	if _, ok := b.Lookup("CCCCCC", now); !ok {
		t.Fatal("a refreshed room expired")
	}
	if _, ok := a.Lookup("AAAAAA", now); !ok {
		t.Fatal("an ended room was forgotten before Remember")
	}
	a.Remove("CCCCCC")
	if _, ok := b.Lookup("CCCCCC", now); ok {
		t.Fatal("Remove left the room")
	}
	if _, err := NewRedisRoomDirectory(ctx, "redis://127.0.0.1:1/0", RedisConfig{ConnectWait: 300 * time.Millisecond}); !errors.Is(err, ErrRedis) {
		t.Fatalf("no redis: %v, want ErrRedis", err)
	}
}

// startFleetRelay serves a relay whose directory is the Redis at url.
func startFleetRelay(t *testing.T, url string) (*testRelay, *RedisRoomDirectory) {
	t.Helper()
	r, dir, _ := startFleetRelayWith(t, url, RoomConfig{}, RedisConfig{})
	return r, dir
}

// startFleetRelayWith serves a relay with cfg whose directory is the Redis
// at url with rcfg. crash stops it as a relay process that dies would:
// its Redis connection first, so that it tells the others nothing.
func startFleetRelayWith(t *testing.T, url string, cfg RoomConfig, rcfg RedisConfig) (r *testRelay, dir *RedisRoomDirectory, crash func()) {
	t.Helper()
	dir, err := NewRedisRoomDirectory(testCtx(t), url, rcfg)
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

// TestRedisFleetJoin runs two relays sharing one Redis: a host registers
// at the first; players join through the second (their signaling goes
// over Redis pub/sub to the first) and exchange datagrams with the host
// over the data channels; a code no relay hosts is no_room at either; the
// host's end reaches the players at the second relay.
func TestRedisFleetJoin(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	r1, _ := startFleetRelay(t, url)
	r2, _ := startFleetRelay(t, url)
	ctx := testCtx(t)
	host, err := HostRoom(ctx, HostOptions{URL: r1.url})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var players []*RoomPlayer
	for range 2 {
		p, err := JoinRoom(ctx, JoinOptions{URL: r2.url, Code: host.Code()})
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
		n, from := roomRecv(t, host.Conn(), buf)
		if from != webrtc.PeerAddr(p.ID()) || string(buf[:n]) != fmt.Sprintf("from %d", i) {
			t.Fatalf("host got %q from %s", buf[:n], from)
		}
		if err := host.Conn().Send(from, []byte("back")); err != nil {
			t.Fatal(err)
		}
		if n, _ := roomRecv(t, p.Conn(), buf); string(buf[:n]) != "back" {
			t.Fatalf("player %d got %q", i, buf[:n])
		}
	}
	if ids := players[0].ID() + players[1].ID(); ids != "p1p2" {
		t.Errorf("player ids %s, want p1 and p2 from the host's relay", ids)
	}
	if _, err := JoinRoom(ctx, JoinOptions{URL: r1.url, Code: "ZZZZZZ"}); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Errorf("join of no room at the first relay: %v", err)
	}
	if _, err := JoinRoom(ctx, JoinOptions{URL: r2.url, Code: "ZZZZZZ"}); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Errorf("join of no room at the second relay: %v", err)
	}
	host.End()
	for i, p := range players {
		testutil.WaitUntil(ctx, t, fmt.Sprintf("player %d at the second relay to hear the room end", i), func() bool {
			return errors.Is(p.Err(), roomproto.ErrRoomEnded)
		})
	}
	if _, err := JoinRoom(ctx, JoinOptions{URL: r2.url, Code: host.Code()}); !errors.Is(err, roomproto.ErrRoomEnded) {
		t.Errorf("join of the ended room at the second relay: %v, want room_ended", err)
	}
}
