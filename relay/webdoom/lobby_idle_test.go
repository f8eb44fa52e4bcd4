package webdoom

import (
	"testing"
	"time"
)

// TestCoreLobbyIdle: with LobbyIdle set, silent seated sockets are
// terminated and their seats freed, a socket that pings keeps its seat;
// with a negative LobbyIdle (WebDoom's own server) 4 silent sockets hold
// the lobby forever; with the default (0: DefaultLobbyIdle, 10 minutes)
// they hold it 10 minutes and no longer (issue 30 item 13).
func TestCoreLobbyIdle(t *testing.T) {
	h := newWDCoreHarness(t, Config{LobbyIdle: -1})
	var silent []ConnID
	for range 4 {
		silent = append(silent, h.lobby())
	}
	h.advance(time.Hour)
	if h.ended(silent[0]) != 0 {
		t.Fatal("never: a silent seat was freed")
	}
	if _, ok := h.c.NextDeadline(); ok {
		t.Fatal("never: a lobby deadline")
	}

	h = newWDCoreHarness(t, Config{})
	silent = silent[:0]
	for range 4 {
		silent = append(silent, h.lobby())
	}
	h.advance(DefaultLobbyIdle - time.Second)
	if h.ended(silent[0]) != 0 {
		t.Fatal("default: a silent seat was freed before 10 minutes")
	}
	h.advance(2 * time.Second)
	for _, id := range silent {
		if h.ended(id) != Terminate {
			t.Fatalf("default: silent seat %d not freed after 10 minutes", id)
		}
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
