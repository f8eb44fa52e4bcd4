package tab

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseConfig: the query overrides the body's room and relay, and a
// bad duration is refused naming the parameter.
func TestParseConfig(t *testing.T) {
	data := map[string]string{"relay": "ws://a/rooms", "room": "AAAAAA", "settings": "grid=128 tick-rate=60", "tickRate": "60"}
	c, err := ParseConfig(data, "?watch=bbbbbb&delay=2s&until-tick=900&relay=ws://b/rooms&channel=port&bench&input=scripted")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.GameSettings([]string{"grid", "tick-rate"}, true); err != nil {
		t.Fatal(err)
	}
	want := Config{Relay: "ws://b/rooms", Room: "BBBBBB", Game: "sand", Settings: map[string]int{"grid": 128, "tick-rate": 60}, Rate: 60,
		Watch: true, Until: 900, Delay: 2 * time.Second, Port: true, Bench: true, Scripted: true, HostSettings: true, query: c.query}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	// A page naming its grid plays it (the host must play it too); a
	// hosting page sends its settings; a game that takes no host
	// settings never plays the host's.
	c, err = ParseConfig(data, "?room=cccccc&grid=64")
	if err != nil || c.GameSettings([]string{"grid", "tick-rate"}, true) != nil || c.HostSettings || c.Settings["grid"] != 64 {
		t.Errorf("?grid=64: %+v, %v", c, err)
	}
	c, err = ParseConfig(data, "?room=cccccc&grid=big")
	if err := c.GameSettings([]string{"grid"}, true); err == nil || !strings.Contains(err.Error(), "?grid=big") {
		t.Errorf("bad grid: %v", err)
	}
	for _, q := range []string{"?host=1", "?game=ships"} {
		c, err := ParseConfig(data, q)
		if err != nil || c.GameSettings([]string{"tick-rate"}, !strings.Contains(q, "ships")) != nil || c.HostSettings {
			t.Errorf("%s: %+v, %v", q, c, err)
		}
	}
	if _, err := ParseConfig(data, "?delay=2s"); err == nil || !strings.Contains(err.Error(), "?delay=2s") {
		t.Errorf("delay without watch: %v", err)
	}
	if c, err := ParseConfig(data, "?timeout=-1s"); err == nil || c.Room != "AAAAAA" {
		t.Errorf("negative timeout: %v (room %q)", err, c.Room)
	}
	data["game"] = "ships"
	if c, err := ParseConfig(data, ""); err != nil || c.Game != "ships" {
		t.Errorf("data-game=ships: %+v, %v", c, err)
	}
	if c, err := ParseConfig(data, "?game=cards"); err != nil || c.Game != "cards" {
		t.Errorf("?game=cards over data-game=ships: %+v, %v", c, err)
	}
	if _, err := ParseConfig(map[string]string{}, ""); err == nil {
		t.Error("no relay nor room: no error")
	}
}

// TestParseConfigHost: ?host=1 hosts a new room at the page's relay
// (no room named yet), &grid= sets the side, and ?host with ?watch is
// refused.
func TestParseConfigHost(t *testing.T) {
	data := map[string]string{"relay": "ws://a/rooms", "room": "AAAAAA", "settings": "grid=128"}
	c, err := ParseConfig(data, "?host=1&grid=64")
	if err != nil || c.GameSettings([]string{"grid"}, true) != nil {
		t.Fatal(err)
	}
	if want := (Config{Relay: "ws://a/rooms", Game: "sand", Settings: map[string]int{"grid": 64}, Host: true, query: c.query}); !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	if _, err := ParseConfig(data, "?host=1&watch"); err == nil {
		t.Error("?host with ?watch: no error")
	}
	if _, err := ParseConfig(map[string]string{}, "?host=1"); err == nil {
		t.Error("?host=1 without a relay: no error")
	}
	if c, err := ParseConfig(data, "?host=0"); err != nil || c.Host || c.Room != "AAAAAA" {
		t.Errorf("?host=0: %+v, %v", c, err)
	}
	if c, err := ParseConfig(data, "?room=+k3f+9qx+"); err != nil || c.Room != "K3F9QX" {
		t.Errorf("a typed code: %+v, %v", c, err)
	}
}

// TestWrongGame: a page that guessed its game (data-game) and finds its
// room plays another loads that game's page; one whose URL named the
// game is told which game the room plays and the URL that plays it.
func TestWrongGame(t *testing.T) {
	data := map[string]string{"relay": "ws://a/rooms", "room": "AAAAAA", "game": "sand"}
	c, err := ParseConfig(data, "?room=k3f9qx")
	if err != nil || c.GameNamed {
		t.Fatalf("%+v, %v", c, err)
	}
	if reload, err := c.WrongGame("cards"); !reload || !strings.Contains(err.Error(), "room K3F9QX plays cards, not sand") {
		t.Errorf("guessed: reload %v, %v", reload, err)
	}
	c, err = ParseConfig(data, "?room=k3f9qx&game=walkers")
	if err != nil || !c.GameNamed {
		t.Fatalf("%+v, %v", c, err)
	}
	if reload, err := c.WrongGame("cards"); reload || !strings.Contains(err.Error(), "plays cards, not walkers: open ?room=K3F9QX&game=cards") {
		t.Errorf("named: reload %v, %v", reload, err)
	}
}
