package tab

import (
	"strings"
	"testing"
	"time"
)

// TestParseConfig: the query overrides the body's room and relay, and a
// bad duration is refused naming the parameter.
func TestParseConfig(t *testing.T) {
	data := map[string]string{"relay": "ws://a/rooms", "room": "AAAAAA", "grid": "128", "tickRate": "60"}
	c, err := ParseConfig(data, "?watch=bbbbbb&delay=2s&until-tick=900&relay=ws://b/rooms&channel=port&bench")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Relay: "ws://b/rooms", Room: "BBBBBB", Side: 128, Rate: 60, Watch: true, Until: 900, Delay: 2 * time.Second, Port: true, Bench: true}
	if c != want {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	if _, err := ParseConfig(data, "?delay=2s"); err == nil || !strings.Contains(err.Error(), "?delay=2s") {
		t.Errorf("delay without watch: %v", err)
	}
	if c, err := ParseConfig(data, "?timeout=-1s"); err == nil || c.Room != "AAAAAA" {
		t.Errorf("negative timeout: %v (room %q)", err, c.Room)
	}
	if _, err := ParseConfig(map[string]string{}, ""); err == nil {
		t.Error("no relay nor room: no error")
	}
}
