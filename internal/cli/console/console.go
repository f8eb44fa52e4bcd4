// Package console serves the operator's console of a relay, a match
// server or the demo (issue 32, docs/operations.md): a page at /console
// listing every room or match and its players, live over Server-Sent
// Events, with small time graphs drawn on plain canvas, and the operator
// actions (end a match, remove a player, close a room to new joins, drain)
// for requests carrying the admin token.
//
// The page's files are embedded: nothing is fetched from elsewhere. The
// data comes from a Provider, the actions go to an Actor; the commands
// (cmd/rewind) wire them to the relay's hub or the match server. Nothing
// runs while nobody watches: the Hub polls the Provider only while an
// event stream is open.
package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"
)

// Path is where the console's page is served; its API is under Path+"/api/".
const Path = "/console"

// Snapshot is what a console shows at one moment: every room or match the
// process knows, and counters for the graphs.
type Snapshot struct {
	// Source names the process: "relay", "serve" or "demo".
	Source string `json:"source"`
	// Now is the snapshot's time, in Unix milliseconds (set by the Hub).
	Now int64 `json:"now"`
	// Draining is set once the process refuses new rooms or players.
	Draining bool `json:"draining"`
	// Fleet is set when Rooms include the rooms of a fleet's other relays.
	Fleet bool `json:"fleet"`
	// Actions lists the actions the process supports (set by the Console:
	// empty when it is read-only).
	Actions []string `json:"actions"`
	// Rooms are the rooms or matches, in the order to show them.
	Rooms []Room `json:"rooms"`
	// Refusals counts refusals by reason since the process started
	// (joins refused, rooms refused, hellos refused).
	Refusals map[string]uint64 `json:"refusals,omitempty"`
	// TicksLateP99 is the 99th percentile of how late ticks ran, in
	// milliseconds, where the process runs matches (else nil).
	TicksLateP99 *float64 `json:"ticksLateP99,omitempty"`
	// BytesIn and BytesOut count bytes since the process started; the Hub
	// turns them into rates.
	BytesIn  uint64 `json:"-"`
	BytesOut uint64 `json:"-"`
}

// Room is one room or match.
type Room struct {
	Code       string `json:"code"`
	Game       string `json:"game,omitempty"`
	Players    int    `json:"players"`
	MaxPlayers int    `json:"maxPlayers,omitempty"`
	Spectators int    `json:"spectators"`
	// Tick is the match's last tick (nil where the process does not run it).
	Tick *uint32 `json:"tick,omitempty"`
	// TicksLateP99 is the match's tick lateness p99 in milliseconds, if known.
	TicksLateP99 *float64 `json:"ticksLateP99,omitempty"`
	// Since is when the room was made (Unix milliseconds; 0 if unknown).
	Since int64 `json:"since,omitempty"`
	// Hosted says where: "match server", "host", "relay ID", "here"; the
	// Console appends HostAddr (hashed unless revealed).
	Hosted string `json:"hosted"`
	// HostAddr is the host's or match server's address, shown like a
	// member's: as its hash unless the operator asks (with the token) for
	// addresses (issue 43 item 5: a tab host's is a person's).
	HostAddr   string `json:"-"`
	Migrations int    `json:"migrations"`
	// Closed is set once the room takes no new joins.
	Closed bool `json:"closed,omitempty"`
	// Remote is set for a room of another relay of the fleet: listed from
	// the shared directory, its players unknown here.
	Remote bool `json:"remote,omitempty"`
	// BytesIn and BytesOut count the room's bytes; the Hub fills the rates.
	BytesIn   uint64   `json:"-"`
	BytesOut  uint64   `json:"-"`
	InPerSec  *float64 `json:"inPerSec,omitempty"`
	OutPerSec *float64 `json:"outPerSec,omitempty"`
	// Members are its players and spectators, where the process knows them.
	Members []Player `json:"members"`
}

// Player is one player or spectator of a room. Fields the process does
// not know stay nil (the page shows a dash).
type Player struct {
	ID        string   `json:"id"`
	Name      string   `json:"name,omitempty"`
	PingMS    *float64 `json:"pingMs,omitempty"`
	Rollbacks *uint64  `json:"rollbacks,omitempty"`
	// Desyncs and Resyncs: a match server counts a player's requests for
	// page hashes (a desync it repairs) and the whole worlds it was sent
	// again (rebases); rollbacks happen in clients, which it never sees.
	Desyncs    *uint64 `json:"desyncs,omitempty"`
	Resyncs    *uint64 `json:"resyncs,omitempty"`
	InputDelay *int    `json:"inputDelay,omitempty"`
	// LateInputs counts the ticks that ran without the player's input.
	LateInputs *uint64 `json:"lateInputs,omitempty"`
	// State is e.g. "joining", "playing", "spectating".
	State string `json:"state"`
	// Since is when the player joined (Unix milliseconds; 0 if unknown).
	Since int64 `json:"since,omitempty"`
	// Addr is the player's address; the Console shows a hash of it
	// unless the operator asks (with the token) for addresses.
	Addr      string   `json:"addr,omitempty"`
	BytesIn   uint64   `json:"-"`
	BytesOut  uint64   `json:"-"`
	InPerSec  *float64 `json:"inPerSec,omitempty"`
	OutPerSec *float64 `json:"outPerSec,omitempty"`
}

// Provider gives the console what to show. Snapshot is called about four
// times a second while at least one page watches, never otherwise; it is
// called from one goroutine at a time.
type Provider interface {
	Snapshot(now time.Time) Snapshot
}

// ProviderFunc is a Provider from a function.
type ProviderFunc func(now time.Time) Snapshot

// Snapshot calls f.
func (f ProviderFunc) Snapshot(now time.Time) Snapshot { return f(now) }

// Actor carries out the operator's actions. A process that cannot do one
// returns an error wrapping ErrUnsupported; an unknown room or player
// ErrNotFound.
type Actor interface {
	// EndMatch ends the room's match; its players are told why.
	EndMatch(code, why string) error
	// RemovePlayer takes a player out of a room (told why); its seat is freed.
	RemovePlayer(code, id, why string) error
	// CloseRoom makes a room refuse new joins; who is in it plays on.
	CloseRoom(code string) error
	// Drain makes the process refuse new rooms and players and let
	// running ones end (its /readyz answers 503 from then on).
	Drain() error
}

// Options configures a Console.
type Options struct {
	// Provider is what the console shows (required).
	Provider Provider
	// Actor carries out actions; nil: none.
	Actor Actor
	// Token is the admin token (LoadToken); nil: the console is read-only
	// and every action is refused with 403.
	Token []byte
	// Interval is how often the Hub polls the Provider while watched
	// (default 250 ms); graphs take one sample a second.
	Interval time.Duration
	// History is how many one-second graph samples are kept (default 300:
	// five minutes).
	History int
	// MaxStreams caps the event streams open without the token (default
	// 64; 4 per address), each a goroutine and a buffer; requests with
	// the token have 16 more of their own. Beyond, 503.
	MaxStreams int
}

// Console is the console's HTTP side: page, state, event stream, actions.
type Console struct {
	opts    Options
	hub     *Hub
	salt    [16]byte
	now     func() time.Time // the clock of state requests (tests: made-up)
	streams streamGate
	limit   stateLimiter
	cache   stateCache
}

// New returns a console; Mount adds it to a mux.
func New(opts Options) *Console {
	if opts.Interval <= 0 {
		opts.Interval = 250 * time.Millisecond
	}
	if opts.History <= 0 {
		opts.History = 300
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = defaultMaxStreams
	}
	c := &Console{opts: opts, now: time.Now}
	rand.Read(c.salt[:]) // never fails
	c.hub = NewHub(opts.Provider, HubOptions{Interval: opts.Interval, History: opts.History, Prepare: c.prepare})
	return c
}

// Hub is the console's event hub (for tests and benchmarks).
func (c *Console) Hub() *Hub { return c.hub }

// actions lists the actions offered: none without a token or an Actor.
func (c *Console) actions() []string {
	if c.opts.Token == nil || c.opts.Actor == nil {
		return []string{}
	}
	return []string{"end", "remove", "close", "drain"}
}

// prepare stamps a snapshot before it is encoded: the actions offered, and
// addresses replaced by their hashes unless revealed.
func (c *Console) prepare(s *Snapshot, reveal bool) {
	s.Actions = c.actions()
	for i := range s.Rooms {
		r := &s.Rooms[i]
		switch {
		case r.HostAddr != "" && reveal:
			r.Hosted += " " + r.HostAddr
		case r.HostAddr != "":
			r.Hosted += " " + c.hashAddr(r.HostAddr)
		}
		r.HostAddr = ""
	}
	if reveal {
		return
	}
	for i := range s.Rooms {
		for j := range s.Rooms[i].Members {
			p := &s.Rooms[i].Members[j]
			p.Addr = c.hashAddr(p.Addr)
		}
	}
}

// hashAddr is what the page shows for an address: 12 hex digits of a
// salted SHA-256, the same for the same address while the process runs.
func (c *Console) hashAddr(a string) string {
	if a == "" {
		return ""
	}
	h := sha256.New()
	h.Write(c.salt[:])
	h.Write([]byte(a))
	return "#" + hex.EncodeToString(h.Sum(nil)[:6])
}

// Mount adds the page, its files and its API under Path to mux.
func (c *Console) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+Path, c.servePage)
	mux.HandleFunc("GET "+Path+"/", c.serveAsset)
	mux.HandleFunc("GET "+Path+"/api/state", c.serveState)
	mux.HandleFunc("GET "+Path+"/api/events", c.serveEvents)
	mux.HandleFunc("POST "+Path+"/api/{action}", c.serveAction)
}
