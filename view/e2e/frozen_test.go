package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// frozenUntil is where the tabs of TestFrozenHostTabRejoins stop: 50 s
// of play. Far enough that A, woken, does not reach it alone first: its
// match's server, on the Worker's timer, runs the ticks it missed while
// frozen (alone: its players went) until the page's claim tells it that
// another player hosts the room.
const frozenUntil = 3000

// frozenFor is how long tab A stays frozen at least: past the 5 s its
// match's server and its own player wait for each other.
const frozenFor = 6 * time.Second

// TestFrozenHostTabRejoins: tab A hosts a room (?host=1) and tab B joins
// it. At about tick 300 A's page is frozen (DevTools
// Page.setWebLifecycleState "frozen", as a phone's browser freezes a tab
// put away): its Worker answers no relay ping, so the relay gives the
// room to B, which takes the match over (hosting=true, migrations=1).
// A stays frozen 6 s at least (frozenFor). A, woken, plays on alone
// (its server does not count its own pause against its own player:
// server/pause.go), finds its relay connection closed (host_gone),
// claims the room with its key as every player does, is introduced to
// B, and joins the match as a new player (its status says joining,
// never failed or done, meanwhile): both reach tick 3000 with one
// verified hash, A with hosting=false and migrations=1, B hosting.
func TestFrozenHostTabRejoins(t *testing.T) {
	d := startDemo(t, "--log-level", "debug")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demo's stderr:\n%s", d.stderr)
		}
	})
	b := chromium(t)
	until := strconv.Itoa(frozenUntil)
	ta, code := hostTab(t, b, d, "&until-tick="+until)
	tb := tab(t, b, d.url+"?room="+code+"&until-tick="+until)
	logConsole(t, tb, "tab B")
	waitStatus(t, tb, "tab B verifies tick 300", 3*time.Minute, func(st map[string]string) bool {
		return st["player"] != "-" && num(t, st, "verified_tick") >= 300
	})
	if _, err := chromedp.Call(ta, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateFrozen}); err != nil {
		t.Fatalf("Page.setWebLifecycleState frozen: %v", err)
	}
	frozen := time.Now()
	st := waitStatus(t, tb, "tab B takes the match over", 2*time.Minute, func(st map[string]string) bool {
		return st["migrations"] == "1" && st["hosting"] == "true"
	})
	t.Logf("tab B hosts %v after A froze: %v", time.Since(frozen).Round(time.Millisecond), st)
	// A stays frozen past frozenFor, longer than its own player waits
	// for its server and its server for its players (5 s): awake, its
	// server must not count its own freeze against them (a loaded
	// machine made B take 5.3 s once, and A's own player timed out).
	time.Sleep(time.Until(frozen.Add(frozenFor)))
	if _, err := chromedp.Call(ta, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateActive}); err != nil {
		t.Fatalf("Page.setWebLifecycleState active: %v", err)
	}
	woke := time.Now()
	st = waitStatus(t, ta, "tab A joins the room again as a player", 2*time.Minute, func(st map[string]string) bool {
		if st["state"] == "failed" || st["state"] == "done" {
			t.Fatalf("tab A, woken, is %s while its match moves: %v", st["state"], st)
		}
		return st["hosting"] == "false" && st["migrations"] == "1" && st["state"] == "playing" && num(t, st, "verified_tick") > 0
	})
	t.Logf("tab A plays again %v after it woke: %v", time.Since(woke).Round(time.Millisecond), st)
	done := func(st map[string]string) bool { return st["state"] == "done" }
	aEnd := waitStatus(t, ta, "tab A reaches the until tick", 3*time.Minute, done)
	bEnd := waitStatus(t, tb, "tab B reaches the until tick", 3*time.Minute, done)
	t.Logf("tab A %v; tab B %v", aEnd, bEnd)
	if aEnd["verified_tick"] != until || aEnd["hosting"] != "false" || aEnd["migrations"] != "1" || aEnd["desyncs"] != "0" {
		t.Errorf("tab A ended with %v", aEnd)
	}
	if bEnd["verified_tick"] != until || bEnd["hosting"] != "true" || bEnd["migrations"] != "1" {
		t.Errorf("tab B ended with %v", bEnd)
	}
	if aEnd["verified_hash"] != bEnd["verified_hash"] || len(aEnd["verified_hash"]) != 16 {
		t.Errorf("verified hashes at tick %s: tab A %s, tab B %s", until, aEnd["verified_hash"], bEnd["verified_hash"])
	}
	if aEnd["player"] == bEnd["player"] {
		t.Errorf("tabs A and B are both player %s", aEnd["player"])
	}
}
