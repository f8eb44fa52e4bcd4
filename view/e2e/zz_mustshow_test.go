package e2e

// The must-show runs of issue 39 (not committed: copy into view/e2e and
// run with MUSTSHOW_GAME=cards|walkers|paint):
//
//	cd view && MUSTSHOW_GAME=cards go test -count=1 -run TestMustShow -v ./e2e

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestMustShow(t *testing.T) {
	game := os.Getenv("MUSTSHOW_GAME")
	if game == "" {
		t.Skip("MUSTSHOW_GAME unset")
	}
	until, tabs := 1200, 2
	if game == "paint" {
		until, tabs = 600, 1
	}
	u := strconv.Itoa(until)
	d := startDemo(t, "--game", game, "--players", strconv.Itoa(tabs+1), "--player-timeout", "30s")
	b := chromium(t)
	var urls []string
	for range tabs {
		urls = append(urls, d.url+"?timeout=30s&input=scripted&until-tick="+u)
	}
	ts := tabsTogether(t, b, urls...)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--game", game, "--join", d.code,
		"--relay", d.relay, "--until-tick", u, "--status", "0", "--log-level", "warn", "--timeout", "30s")
	for i, tc := range ts {
		st := waitStatus(t, tc, "tab reaches until", 4*time.Minute, func(st map[string]string) bool {
			return st["state"] == "done" || st["state"] == "failed"
		})
		n := eval[int](t, tc, canvasColours)
		hint := eval[string](t, tc, `document.getElementById("hint").textContent`)
		t.Logf("%s tab %d: verified_tick=%s verified_hash=%s desyncs=%s resyncs=%s canvas_colours=%d hint=%q", game, i+1, st["verified_tick"], st["verified_hash"], st["desyncs"], st["resyncs"], n, hint)
		screenshot(t, tc, game+"-tab"+strconv.Itoa(i+1)+".png")
	}
	bl := bot.result(t, "rewind play")
	t.Logf("%s bot: verified_tick=%s verified_hash=%s desyncs=%s resyncs=%s", game, bl["verified_tick"], bl["verified_hash"], bl["desyncs"], bl["resyncs"])
}
