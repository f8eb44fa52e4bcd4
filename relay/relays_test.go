package relay

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// deadRelayURL is a relay URL on 127.0.0.1 whose port refuses connections
// (a port the kernel gave and that was closed again).
func deadRelayURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "ws://" + addr + roomproto.Path
}

// silentRelayURL is a relay URL on 127.0.0.1 that accepts connections and
// never answers (a hung relay), until the end of the test.
func silentRelayURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "ws://" + ln.Addr().String() + roomproto.Path
}

// TestRoomRelayList: a host, a player and a claimant given a list of
// relays pass over a dead one (connection refused) and a hung one (no
// answer within TryTimeout) to the live one, and say which relay took
// them; the player's data channel to the host carries datagrams. A live
// relay's refusal about the room (no_room) is final: the next relay of
// the list, which holds the room, is not asked. A list with no live relay
// fails naming every relay's failure.
func TestRoomRelayList(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	live := startTestRelay(t, RoomConfig{})
	other := startTestRelay(t, RoomConfig{}) // not the live one's fleet: it has no room
	dead, silent := deadRelayURL(t), silentRelayURL(t)
	ctx := testCtx(t)

	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: dead, URLs: []string{live.url}})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if host.URL() != live.url {
		t.Fatalf("hosted at %s, want %s", host.URL(), live.url)
	}
	p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: dead, URLs: []string{silent, live.url}, Code: host.Code(),
		TryTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.URL() != live.url {
		t.Fatalf("joined through %s, want %s", p.URL(), live.url)
	}
	// A list whose hung relay is passed over and whose last is refused:
	// the hung relay's failure is no answer, not the caller's deadline.
	_, err = roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: silent, URLs: []string{dead}, Code: host.Code(), TryTimeout: 300 * time.Millisecond})
	if !errors.Is(err, roomclient.ErrNoAnswer) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("join past a hung relay to a dead one: %v, want no answer and no deadline", err)
	}
	if err := p.Conn().Send(p.Conn().RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := testutil.Recv(t, host.Conn(), buf); string(buf[:n]) != "hello" {
		t.Fatalf("host got %q", buf[:n])
	}

	_, err = roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: other.url, URLs: []string{live.url}, Code: host.Code()})
	var re *roomproto.Error
	if !errors.Is(err, roomproto.ErrNoRoom) || !errors.As(err, &re) || strings.Contains(err.Error(), live.url) {
		t.Fatalf("join through a relay without the room first: %v, want its no_room alone", err)
	}
	if n, _ := live.srv.Stats(); n != 2 {
		t.Fatalf("the live relay holds %d connections, want 2 (the host and the player)", n)
	}

	// A claim with another key reaches the live relay past the dead one
	// and is refused there: a relay's answer.
	_, err = roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: dead, URLs: []string{live.url}, Code: host.Code(),
		Key: strings.Repeat("0", roomproto.KeyHexLen)})
	if !errors.As(err, &re) || !strings.Contains(err.Error(), live.url) {
		t.Fatalf("claim past a dead relay: %v, want the live relay's refusal", err)
	}

	// The last relay's try is bounded by the caller's context only.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = roomclient.JoinRoom(short, roomclient.JoinOptions{URL: dead, URLs: []string{silent}, Code: host.Code()})
	if err == nil || errors.As(err, &re) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), dead) || !strings.Contains(err.Error(), silent) {
		t.Fatalf("join with no live relay: %v, want each relay's failure", err)
	}
}
