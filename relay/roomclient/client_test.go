package roomclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestGatedReaderKeepsMessagesBehindTheAnswer: the relay's messages that
// arrive right behind its answer to a host's or claimant's first request,
// before the caller is ready for them (a claimant that takes a room over
// hears at once of the claimants introduced to it, while it still sets
// up its WebRTC host), all reach the handler, in order, once it starts;
// the reader never stalls on them. (It once put the second in the
// answer's channel and blocked on the third: the new host then answered
// no ping and lost the room.)
func TestGatedReaderKeepsMessagesBehindTheAnswer(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	testutil.SkipSockets(t)
	const n = 5
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		msgs := []*roomproto.Msg{{Type: roomproto.MsgHosted, V: roomproto.Version, Code: "ABCDEF"}}
		for i := range n {
			msgs = append(msgs, &roomproto.Msg{Type: roomproto.MsgPlayer, ID: fmt.Sprintf("p%d", i+1)})
		}
		for _, m := range msgs {
			if err := ws.Write(r.Context(), websocket.MessageText, m.Encode()); err != nil {
				return
			}
		}
		_, _, _ = ws.Read(r.Context()) // until the client closes
	}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	got := make(chan string, n)
	rc, replies, start, err := dialRoomGated(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), func(m roomproto.Msg) { got <- m.ID })
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	if m, err := firstReply(ctx, rc, replies, roomproto.MsgHosted); err != nil || m.Code != "ABCDEF" {
		t.Fatalf("first reply %+v, %v", m, err)
	}
	// Not a synchronization: it lets the later messages reach the reader
	// before start, the order that stalled it.
	time.Sleep(100 * time.Millisecond)
	start()
	for i := range n {
		select {
		case id := <-got:
			if want := fmt.Sprintf("p%d", i+1); id != want {
				t.Fatalf("message %d: %s, want %s", i+1, id, want)
			}
		case <-ctx.Done():
			t.Fatalf("%d of %d messages behind the answer reached the handler", i, n)
		}
	}
}

// TestFirstReplyPrefersAnAnswerBeforeTheEnd: a relay that refuses a
// request answers with an error and closes the connection at once, so the
// reader has queued the answer and ended the connection both by the time
// the caller waits: the answer must win every time (a select that picks
// either made "serve without the token" come back as a closed connection
// instead of ErrUnauthorized once in CI).
func TestFirstReplyPrefersAnAnswerBeforeTheEnd(t *testing.T) {
	for range 200 {
		rc := &roomClient{done: make(chan struct{}), err: roomproto.ErrRelayClosed}
		close(rc.done)
		replies := make(chan roomproto.Msg, 1)
		replies <- roomproto.ErrorMsg(roomproto.ErrCodeUnauthorized, roomproto.MsgServe, "no proof")
		_, err := firstReply(context.Background(), rc, replies, roomproto.MsgServing)
		if !errors.Is(err, roomproto.ErrUnauthorized) {
			t.Fatalf("firstReply: %v, want ErrUnauthorized", err)
		}
	}
}
