package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// joinByField opens the demo's page (more: its query, e.g.
// "?until-tick=T") in a new tab of browser b and joins the room code as a
// person does with the page's join-a-room field: it types a wrong code
// first (lower case, with a space), waits for the field to say at once
// that no room has it (the relay's lookup), types code the same way,
// waits for the join button, and presses it. It returns the tab once its
// page is the room's (#status room=CODE, the query kept).
func joinByField(t *testing.T, b context.Context, d *demo, code, more string) context.Context {
	t.Helper()
	tb := tab(t, b, d.url+more)
	logConsole(t, tb, "tab B")
	waitJS(t, tb, "page.js watches the join field", time.Minute, `document.getElementById("joinsay") !== null && window.rewindTimes.script !== undefined`)
	wrong := []byte(code) // code with its last characters changed: no room's
	for i := len(wrong) - 1; string(wrong) == code || string(wrong) == d.code; i-- {
		if wrong[i] == 'Z' {
			wrong[i] = '2'
		} else {
			wrong[i] = 'Z'
		}
	}
	field := chromedp.CSS("#join input")
	typed := func(c string) string { return strings.ToLower(c[:3] + " " + c[3:]) } // "abc d234": as a person reads it out
	if err := chromedp.Do(tb, chromedp.SendKeys(field, typed(string(wrong)))); err != nil {
		t.Fatalf("typing a wrong code: %v", err)
	}
	typedAt := time.Now()
	waitJS(t, tb, "the field says no room "+string(wrong), time.Minute,
		`document.getElementById("joinsay").textContent.startsWith("no room `+string(wrong)+` ") && document.querySelector("#join button").disabled`)
	noRoom := time.Since(typedAt)
	eval[string](t, tb, `document.querySelector("#join input").value = ""`) // as a person deletes it
	if err := chromedp.Do(tb, chromedp.SendKeys(field, typed(code))); err != nil {
		t.Fatalf("typing the code: %v", err)
	}
	typedAt = time.Now()
	waitJS(t, tb, "the field finds room "+code, time.Minute, `!document.querySelector("#join button").disabled`)
	t.Logf("the join field said no room %s %v after the last key, found room %s %v after (lookups at the relay, 150 ms debounce included)",
		wrong, noRoom.Round(time.Millisecond), code, time.Since(typedAt).Round(time.Millisecond))
	if say := eval[string](t, tb, `document.getElementById("joinsay").textContent`); !strings.Contains(say, code) {
		t.Errorf("the field says %q for room %s", say, code)
	}
	if err := chromedp.Do(tb, chromedp.Click(chromedp.CSS("#join button"))); err != nil {
		t.Fatalf("pressing join: %v", err)
	}
	waitJS(t, tb, "the page joins room "+code, 2*time.Minute,
		`document.getElementById("status").textContent.startsWith("room=`+code+` ")`)
	if q, want := eval[string](t, tb, `location.search`), "?room="+code+strings.Replace(more, "?", "&", 1); q != want {
		t.Errorf("the join button went to %q, want %q", q, want)
	}
	return tb
}

// waitJS polls the JavaScript expression expr in a tab until it is true,
// failing after limit. A page being replaced (a navigation) cannot
// answer: that counts as false.
func waitJS(t *testing.T, ctx context.Context, what string, limit time.Duration, expr string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ok, err := chromedp.Run(ectx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (%s: %v)", what, limit, expr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
