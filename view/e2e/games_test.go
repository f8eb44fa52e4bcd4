package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTabGames: a tab plays any registered game, and learns it from the
// room. The demo hosts sand; its page offers every registered game to
// host. Tab A hosts a walkers room (?host=1&game=walkers, one of those
// links); tab B opens ?room=CODE on the demo's page, which guesses
// sand (data-game): the host refuses it naming walkers (codec.Refuse's
// game), and the page loads itself again with &game=walkers and plays;
// tab C names ?game=cards and is told the room plays walkers. A `rewind
// play --headless --game walkers` bot joins too: B and the bot reach
// one tick, 15 s of the match after they open, with one verified hash
// (A plays on), B's hint says walkers'
// controls and its canvas shows the game (more than three colours under
// the HUD).
func TestTabGames(t *testing.T) {
	d := startDemo(t, "--player-timeout", "30s")
	b := chromium(t)
	ta, code := hostTab(t, b, d, "&game=walkers&timeout=30s") // no until-tick: a host whose player is done ends a match no one else joined
	// The until tick: 15 s of the host's match after now, time for tab
	// B to load twice and join (a player that joins after it has no hash
	// of it: its first world is the server's of a later tick).
	until := num(t, status(t, ta), "tick") + 900
	u := strconv.Itoa(until)
	if links := eval[string](t, ta, `[...document.querySelectorAll("#host a")].map(a => a.textContent).join(",")`); !strings.Contains(links, "walkers") || !strings.Contains(links, "cards") {
		t.Errorf("the page offers to host %q: want every registered game", links)
	}
	tb := tab(t, b, d.url+"?timeout=30s&until-tick="+u+"&room="+code)
	tc := tab(t, b, d.url+"?game=cards&room="+code)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--game", "walkers", "--input", "random", "--join", code,
		"--relay", d.relay, "--until-tick", u, "--status", "0", "--log-level", "warn", "--timeout", "30s")
	stc := waitStatus(t, tc, "the cards tab is told the room's game", 2*time.Minute, func(st map[string]string) bool {
		return st["state"] == "failed"
	})
	if want := "room_" + code + "_plays_walkers,_not_cards:_open_?room=" + code + "&game=walkers"; stc["error"] != want {
		t.Errorf("the cards tab's error %q, want %q", stc["error"], want)
	}
	stb := waitStatus(t, tb, "tab B plays walkers to the until tick", 3*time.Minute, func(st map[string]string) bool {
		return st["state"] == "done" || st["state"] == "failed"
	})
	if loc := eval[string](t, tb, `location.search`); !strings.Contains(loc, "game=walkers") {
		t.Errorf("tab B's address %q: not reloaded for walkers", loc)
	}
	if hint := eval[string](t, tb, `document.getElementById("hint").textContent`); !strings.HasPrefix(hint, "walkers: ") {
		t.Errorf("tab B's hint %q: not walkers' controls", hint)
	}
	if n := eval[int](t, tb, canvasColours); n < 4 {
		t.Errorf("tab B's canvas under the HUD has %d colours: not the game", n)
	}
	bl := bot.result(t, "rewind play")
	t.Logf("tick %s: tab B %v; bot %v; host tab A now %v", u, stb, bl, status(t, ta))
	if stb["verified_tick"] != u || bl["verified_tick"] != u {
		t.Fatalf("tab B %v; bot %v: want both at verified tick %s", stb, bl, u)
	}
	if stb["verified_hash"] != bl["verified_hash"] {
		t.Errorf("tick %s: tab B hash %s, bot %s", u, stb["verified_hash"], bl["verified_hash"])
	}
}
