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
// data attributes (data-relay, data-room, data-game, data-settings,
// data-tick-rate) as `rewind demo` writes them, overridden by the
// query: ?game=NAME (any game the Worker's registry has), ?room=CODE,
// ?relay=URL, ?watch[=CODE], ?until-tick=T, &delay=D (with ?watch),
// ?timeout=D, ?channel=port (carry the data channel's datagrams over
// a MessagePort even where the browser can transfer the channel),
// ?bench (measure a 60-tick rollback in the Worker once done), ?host=1
// (host a new room: Room is then empty until the relay names it),
// &NAME=N for each of the game's settings (&grid=N: the sand grid's
// side; GameSettings reads them) and ?input=scripted (play the scripted
// bot's input, not the keys).
type Config struct {
	Relay, Room string
	// Game is the game the match plays, a name the Worker looks up in
	// the game registry (package games): DefaultGame if the page names
	// none.
	Game string
	// GameNamed says the URL named the game (?game=): else the page
	// guessed it (data-game: the demo's own room's), and a room that
	// plays another game reloads the page with that one (WrongGame).
	GameNamed bool
	// Settings are the game's settings by name: data-settings'
	// NAME=VALUE words (rewind demo's room's), overridden by the query's
	// (GameSettings, which knows the game's names).
	Settings map[string]int
	// Rate is the tick rate the page's data names (data-tick-rate), the
	// Worker's timer's until the game is made.
	Rate int
	// query is the URL's query, for GameSettings.
	query   url.Values
	Watch   bool
	Until   uint32
	Delay   time.Duration
	Timeout time.Duration
	// Port asks for the MessagePort path (?channel=port).
	Port bool
	// Bench asks the Worker, once its player is done, to measure a
	// tick and a 60-tick rollback of the demo's world (?bench).
	Bench bool
	// Host asks to host a new room (?host=1, not with ?watch).
	Host bool
	// HostSettings takes the host's match settings from its welcome (the
	// sand grid's side and the tick rate: client.Config.HostSettings), as
	// `rewind play --join` does: set by GameSettings for a page that
	// joins or watches a room of a game that takes them and names none
	// of its settings in its query (the page's data-settings are the
	// demo's room's, and a room joined by its code may be another
	// host's, e.g. a tab's with ?host=1&grid=128).
	HostSettings bool
	// Scripted plays the game's scripted bot input (its registry entry's
	// Bot, as `rewind play --input scripted`) instead of the keys
	// (?input=scripted).
	Scripted bool
}

// DefaultGame is the game of a page that names none.
const DefaultGame = "sand"

// ParseConfig reads a page's Config from its <html> element's data attributes
// (relay, room, game, settings, tickRate) and its location.search. An error names
// the bad parameter; the Config then still names the room.
func ParseConfig(data map[string]string, search string) (Config, error) {
	c := Config{Relay: data["relay"], Room: data["room"], Game: data["game"], Settings: map[string]int{}}
	c.Rate, _ = strconv.Atoi(data["tickRate"])
	for _, kv := range strings.Fields(data["settings"]) {
		k, v, _ := strings.Cut(kv, "=")
		if n, err := strconv.Atoi(v); err == nil {
			c.Settings[k] = n
		}
	}
	q, _ := url.ParseQuery(strings.TrimPrefix(search, "?"))
	c.query = q
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
		c.Game, c.GameNamed = g, true
	}
	if c.Game == "" {
		c.Game = DefaultGame
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
	if !c.Host && (c.Relay == "" || c.Room == "") {
		return c, errors.New("the page names no relay or room (open the URL rewind demo printed, or add ?room=CODE)")
	}
	return c, nil
}

// GameSettings reads the game's settings (names: its registry entry's,
// and games.TickRate) from the query over the data attributes' into
// Settings, and sets HostSettings for a page that joins or watches a
// room (not one that hosts) of a game that takes the host's settings
// (hostSettings) and whose query names none of names. An error names a
// value that is not an integer; ranges are the game's to check.
func (c *Config) GameSettings(names []string, hostSettings bool) error {
	given := false
	for _, name := range names {
		v := c.query.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("?%s=%s: want an integer", name, v)
		}
		c.Settings[name], given = n, true
	}
	c.HostSettings = hostSettings && !given && !c.Host
	return nil
}

// WrongGame returns what a page does when its room plays game, not
// c.Game (the server refused it naming its game): a page that guessed its
// game (not GameNamed) loads itself again with ?game=game (reload true);
// one whose URL named another game is told which game the room plays
// and the URL that plays it.
func (c Config) WrongGame(game string) (reload bool, err error) {
	if !c.GameNamed {
		return true, fmt.Errorf("room %s plays %s, not %s: loading its page (?room=%s&game=%s)", c.Room, game, c.Game, c.Room, game)
	}
	return false, fmt.Errorf("room %s plays %s, not %s: open ?room=%s&game=%s", c.Room, game, c.Game, c.Room, game)
}

// ErrorField returns err as the value of #status's error= key (spaces
// turned into underscores, so that the line stays key=value pairs).
func ErrorField(err error) string { return strings.ReplaceAll(err.Error(), " ", "_") }
