package webdoom

import (
	"testing"
	"time"
)

// TestCoreLobbyIdle: with LobbyIdle set, silent seated sockets are
// terminated and their seats freed, a socket that pings keeps its seat;
// with the default (0) 4 silent sockets hold the lobby forever.
func TestCoreLobbyIdle(t *testing.T) {
	h := newWDCoreHarness(t, Config{})
	var silent []ConnID
	for range 4 {
		silent = append(silent, h.lobby())
	}
	h.advance(time.Hour)
	if h.ended(silent[0]) != 0 {
		t.Fatal("default: a silent seat was freed")
	}
	if _, ok := h.c.NextDeadline(); ok {
		t.Fatal("default: a lobby deadline")
	}

	cfg := Config{LobbyIdle: 30 * time.Second}
	h = newWDCoreHarness(t, cfg)
	talker := h.lobby()
	silent = silent[:0]
	for range 3 {
		silent = append(silent, h.lobby())
	}
	for range 3 {
		h.advance(20 * time.Second)
		h.say(talker, `{"t":"ping","t0":1}`)
	}
	for _, id := range silent {
		if h.ended(id) != Terminate {
			t.Fatalf("silent seat %d not freed after 60 s", id)
		}
		h.close(id) // the socket closes: its seat is free
	}
	if h.ended(talker) != 0 {
		t.Fatal("a socket that pings lost its seat")
	}
	if late := h.lobby(); h.ended(late) != 0 {
		t.Fatal("a newcomer was refused after the silent seats went")
	}
	if n := h.c.Stats().Refusals[RefuseLobbyIdle]; n != 3 {
		t.Fatalf("%d lobby-idle refusals, want 3", n)
	}
}
