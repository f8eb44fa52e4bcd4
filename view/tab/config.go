package tab

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is what a page's URL and <html> element say about the match: its
// data attributes (data-relay, data-room, data-game, data-grid,
// data-tick-rate) as `rewind demo` writes them, overridden by the
// query: ?game=NAME, ?room=CODE,
// ?relay=URL, ?watch[=CODE], ?until-tick=T, &delay=D (with ?watch),
// ?timeout=D, ?channel=port (carry the data channel's datagrams over
// a MessagePort even where the browser can transfer the channel),
// ?bench (measure a 60-tick rollback in the Worker once done), ?host=1
// (host a new room: Room is then empty until the relay names it),
// &grid=N (the sand grid's side, overriding data-grid: a sand page
// without it takes the host's, HostSettings) and
// ?input=scripted (play the scripted bot's input, not the keys).
type Config struct {
	Relay, Room string
	// Game is the game the match plays: sand (the default) or ships.
	Game       string
	Side, Rate int
	Watch      bool
	Until      uint32
	Delay      time.Duration
	Timeout    time.Duration
	// Port asks for the MessagePort path (?channel=port).
	Port bool
	// Bench asks the Worker, once its player is done, to measure a
	// tick and a 60-tick rollback of the demo's world (?bench).
	Bench bool
	// Host asks to host a new room (?host=1, not with ?watch).
	Host bool
	// HostSettings takes the host's match settings from its welcome (the
	// sand grid's side and the tick rate: client.Config.HostSettings), as
	// `rewind play --join` does: a sand page that joins or watches a
	// room and names no ?grid (the page's data-grid is the demo's room's,
	// and a room joined by its code may be another host's, e.g. a tab's
	// with ?host=1&grid=128).
	HostSettings bool
	// Scripted plays the game's scripted bot input (sand.Bot or ships.Bot for the
	// player's id, as `rewind play --input scripted`) instead of the keys
	// (?input=scripted).
	Scripted bool
}

// ParseConfig reads a page's Config from its <html> element's data attributes
// (relay, room, game, grid, tickRate) and its location.search. An error names
// the bad parameter; the Config then still names the room.
func ParseConfig(data map[string]string, search string) (Config, error) {
	c := Config{Relay: data["relay"], Room: data["room"], Game: data["game"]}
	c.Side, _ = strconv.Atoi(data["grid"])
	c.Rate, _ = strconv.Atoi(data["tickRate"])
	q, _ := url.ParseQuery(strings.TrimPrefix(search, "?"))
	if r := strings.Join(strings.Fields(q.Get("room")), ""); r != "" {
		c.Room = strings.ToUpper(r) // typed: "k3f 9qx" is K3F9QX
	}
	if r := q.Get("relay"); r != "" {
		c.Relay = r
	}
	c.Watch = q.Has("watch")
	if r := q.Get("watch"); r != "" {
		c.Room = strings.ToUpper(r)
	}
	if u := q.Get("until-tick"); u != "" {
		n, _ := strconv.ParseUint(u, 10, 31)
		c.Until = uint32(n)
	}
	c.Port = q.Get("channel") == "port"
	c.Bench = q.Has("bench")
	c.Scripted = q.Get("input") == "scripted"
	if g := q.Get("game"); g != "" {
		c.Game = g
	}
	switch c.Game {
	case "":
		c.Game = "sand"
	case "sand", "ships":
	default:
		return c, fmt.Errorf("?game=%s: want sand or ships", c.Game)
	}
	if g := q.Get("grid"); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || n < 16 || n > 1024 {
			return c, fmt.Errorf("?grid=%s: want a side of 16 to 1024 cells", g)
		}
		c.Side = n
	}
	if h := q.Get("host"); h != "" && h != "0" {
		if c.Watch {
			return c, errors.New("?host and ?watch: a tab hosts a room or watches one")
		}
		c.Host, c.Room = true, ""
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
		ok   func(time.Duration) bool
		want string
	}{
		{"delay", &c.Delay, func(d time.Duration) bool { return d >= 0 && c.Watch }, "a duration such as 3s, with ?watch"},
		{"timeout", &c.Timeout, func(d time.Duration) bool { return d > 0 }, "a positive duration such as 30s"},
	} {
		v := q.Get(d.name)
		if v == "" {
			continue
		}
		var err error
		if *d.dst, err = time.ParseDuration(v); err != nil || !d.ok(*d.dst) {
			return c, fmt.Errorf("?%s=%s: want %s", d.name, v, d.want)
		}
	}
	if c.Host && c.Relay == "" {
		return c, errors.New("the page names no relay to host the room at (add ?relay=URL)")
	}
	if c.Host {
		return c, nil
	}
	c.HostSettings = c.Game == "sand" && !q.Has("grid")
	if c.Relay == "" || c.Room == "" {
		return c, errors.New("the page names no relay or room (open the URL rewind demo printed, or add ?room=CODE)")
	}
	return c, nil
}

// ErrorField returns err as the value of #status's error= key (spaces
// turned into underscores, so that the line stays key=value pairs).
func ErrorField(err error) string { return strings.ReplaceAll(err.Error(), " ", "_") }
