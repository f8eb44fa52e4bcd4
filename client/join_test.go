package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestRefusedErrorCarriesTheReason: for every reason a server refuses a
// hello with, the client's Update fails with a *RefusedError holding it,
// which is also ErrRefused.
func TestRefusedErrorCarriesTheReason(t *testing.T) {
	for _, reason := range []codec.Reason{codec.ReasonFull, codec.ReasonProtocol, codec.ReasonGame, codec.ReasonCookie} {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		net := transport.NewSimNetwork(1, t0)
		srv, _ := net.Listen("server")
		conn, _ := net.Dial("c", "server")
		c, err := client.New[testgame.Input](&testgame.Game{}, conn, client.Config{})
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		if err := c.Update(now); err != nil { // hello
			t.Fatal(err)
		}
		m := codec.Refuse{Reason: reason}
		_ = srv.Send(conn.LocalAddr(), m.Append(nil))
		now = now.Add(time.Millisecond)
		net.Advance(now)
		err = c.Update(now)
		var r *client.RefusedError
		if !errors.As(err, &r) || r.Reason != reason || !errors.Is(err, client.ErrRefused) {
			t.Errorf("%v: Update returned %v", reason, err)
		}
		srv.Close()
		conn.Close()
	}
}
