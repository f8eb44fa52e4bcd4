//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
)

// worker is the Worker's state; its fields are the loop's alone (run).
type worker struct {
	wake, ticks chan struct{}
	timer       js.Func
	interval    js.Value
	period      time.Duration

	cfg      tab.Config
	kind     seat.Kind[games.Input] // the page's game
	failed   error                  // the join failed (or the page's settings are bad)
	joins    chan joinAnswer
	player   match
	joined   chan match
	runs     int
	verified bool
	stopped  bool

	reloading  bool // the page was asked to load the room's game (wrongGame)
	predicting bool // the timeline's predicting mark was posted
	welcomed   bool // and its welcomed mark

	mu     sync.Mutex // conns, claims, claimN, hostConn: the join's and migrations' goroutines too
	conns  map[int]*tab.Conn
	claims map[int]chan joinAnswer
	claimN int

	// hostConn carries the channels of the players of a room this tab
	// hosts (registered with ?host=1, or taken over in a migration);
	// hosted gets the page's answer to ?host=1.
	hostConn *tab.HostConn
	hosted   chan hostAnswer
	// moved counts the moves of the matches of seats closed before this
	// one (a tab whose room the relay gave to another player).
	moved int

	frame    tab.Frame
	lastPred uint32
	lastRb   uint32
	enc      []byte
}

// joinAnswer is the page's answer to a join or a claim: the channel that
// opened, that this tab hosts the room now (a claim's), or why not.
type joinAnswer struct {
	id   int
	host bool
	err  error
}

// hostAnswer is the page's answer to ?host=1: the room's code and key,
// or why not.
type hostAnswer struct {
	code, key string
	err       error
}

func newWorker() *worker {
	w := &worker{wake: make(chan struct{}, 1), ticks: make(chan struct{}, 1), joins: make(chan joinAnswer, 1),
		joined: make(chan match, 1), conns: map[int]*tab.Conn{}, claims: map[int]chan joinAnswer{},
		hosted: make(chan hostAnswer, 1)}
	w.hostConn = tab.NewHostConn(w.wake)
	return w
}

// inbox takes the page's messages worker.js queued.
func (w *worker) inbox() {
	q := js.Global().Get("rewindInbox")
	for q.Length() > 0 {
		m := q.Call("shift")
		switch m.Get("t").String() {
		case tab.MsgStart:
			w.start(m)
		case tab.MsgJoined:
			w.joins <- joinAnswer{id: m.Get("id").Int()}
		case tab.MsgFailed:
			w.joins <- joinAnswer{err: errors.New(m.Get("err").String())}
		case tab.MsgLost:
			w.mu.Lock()
			c := w.conns[m.Get("id").Int()]
			w.mu.Unlock()
			if c != nil {
				c.HostLost()
			}
		case tab.MsgClaimed, tab.MsgClaimFailed:
			w.claimAnswer(m)
		case tab.MsgHosted:
			if e := m.Get("err"); e.Type() == js.TypeString {
				w.hosted <- hostAnswer{err: errors.New(e.String())}
			} else {
				w.hosted <- hostAnswer{code: m.Get("code").String(), key: m.Get("key").String()}
			}
		case tab.MsgPeer:
			w.host().AddPeer(m.Get("id").Int(), transport.Addr(m.Get("peer").String()))
		case "closed": // a channel closed (worker.js, or the page's forwarding)
			w.host().DropPeer(m.Get("id").Int())
		case tab.MsgUnhosted:
			w.unhosted(m.Get("code").String())
		case tab.MsgInput:
			if w.player != nil && !w.cfg.Scripted {
				w.player.setControls(draw.Controls{Keys: draw.Keys(num(m, "k")) & draw.AllKeys,
					X: num(m, "x"), Y: num(m, "y"), Width: num(m, "w"), Height: num(m, "h")})
			}
		}
	}
	select {
	case p := <-w.joined:
		w.player = p
		if w.cfg.Scripted {
			p.Script()
		}
	default:
	}
}

// num returns m's number k as an int32 (0 if it is not a number).
func num(m js.Value, k string) int32 {
	v := m.Get(k)
	if v.Type() != js.TypeNumber {
		return 0
	}
	return int32(v.Int())
}

// host returns the HostConn of the room this tab hosts (or will).
func (w *worker) host() *tab.HostConn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hostConn
}

// unhosted: another player hosts the room code, which this tab hosted
// (the relay dropped the tab, which left its pings unanswered: frozen by
// the browser, or its machine asleep; the match's players took it
// over), so this tab's server serves no one. Its seat closes (the
// server's goodbye says the match goes on elsewhere, and its channels
// close) and a new seat joins the match as a new player over the channel
// the page's claim opened to the new host (tab.MsgJoined). That counts as a move to a new host; the
// status says joining meanwhile.
func (w *worker) unhosted(code string) {
	select {
	case p := <-w.joined: // a seat made just now
		w.player = p
	default:
	}
	p := w.player
	if p == nil || !p.Hosting() {
		return
	}
	w.moved = p.Migrations() + 1
	_ = p.Close()
	w.player = nil
	w.mu.Lock()
	w.hostConn = tab.NewHostConn(w.wake) // the old one closed with its server
	w.mu.Unlock()
	w.cfg.Host, w.cfg.Room = false, code
	go w.join()
}

// start takes the page's settings and starts the timer and the join.
func (w *worker) start(m js.Value) {
	data := map[string]string{}
	d := m.Get("data")
	keys := js.Global().Get("Object").Call("keys", d)
	for i := range keys.Length() {
		k := keys.Index(i).String()
		data[k] = d.Get(k).String()
	}
	w.cfg, w.failed = tab.ParseConfig(data, m.Get("search").String())
	if w.failed == nil {
		var help string
		if w.kind, help, w.failed = kindOf(&w.cfg); w.failed == nil {
			w.postKind(tab.MsgHelp, "game", w.cfg.Game, "help", help)
		}
	}
	w.startTimer(w.cfg.Rate)
	if w.failed != nil {
		return
	}
	go w.join()
}

// kindOf returns the Kind of the page's game (?game=, data-game) from the
// registry and its line on the controls, and reads the game's settings
// from the page into c.
func kindOf(c *tab.Config) (seat.Kind[games.Input], string, error) {
	e, err := games.Lookup(c.Game)
	if err != nil {
		return seat.Kind[games.Input]{}, "", fmt.Errorf("?game=%s: %w", c.Game, err)
	}
	names := []string{games.TickRate}
	for _, s := range e.Settings {
		names = append(names, s.Name)
	}
	if err := c.GameSettings(names, e.HostSettings); err != nil {
		return seat.Kind[games.Input]{}, "", err
	}
	if r := c.Settings[games.TickRate]; r > 0 {
		c.Rate = r
	}
	return seat.FromEntry(e), e.Help, nil
}

// join starts the player, a seat of the page's game (any the registry
// has: view/internal/allgames), once the page's join opened a channel,
// or, with ?host=1, once the page registered the room this tab hosts.
func (w *worker) join() {
	c := w.cfg
	cfg := seat.Config{Room: c.Room, Settings: c.Settings, Rate: c.Rate, Until: c.Until, Spectate: c.Watch, Delay: c.Delay, Timeout: c.Timeout,
		Moved: w.moved, HostSettings: c.HostSettings}
	var host *hostAnswer
	if c.Host {
		a := <-w.hosted
		if a.err != nil {
			w.failed = a.err // read by the loop's next tick
			return
		}
		cfg.Room = a.code
		host = &a
	}
	m, err := open(w, w.kind, cfg, host)
	if err != nil {
		w.failed = err // read by the loop's next tick
		return
	}
	w.joined <- m
	w.poke()
}

// open opens a seat of kind k.
func open[I comparable](w *worker, k seat.Kind[I], cfg seat.Config, host *hostAnswer) (match, error) {
	p, err := seat.OpenKind(k, cfg, connector[I](w, host))
	if err != nil {
		return nil, err
	}
	return &played[I]{Played: p}, nil
}

// connector returns the seat's Connector: with host (?host=1), the
// session of the room this tab hosts; else a session over the channel
// the page's join opened, which migrates with the page's claims when the
// relay says its host is lost.
func connector[I any](w *worker, host *hostAnswer) seat.ConnectorOf[I] {
	return func(g rewind.Game[I], opts rewind.Options) (*rewind.Session[I], error) {
		if host != nil {
			return playHost(g, w.host(), host.code, host.key, opts)
		}
		a := <-w.joins
		if a.err != nil {
			return nil, a.err
		}
		conn := w.conn(a.id)
		w.postKind(tab.MsgReady, "at", tab.Now(), "stage", "started")
		s, err := rewind.Connect(g, conn, opts)
		if err != nil {
			conn.Close()
			return nil, err
		}
		w.postKind(tab.MsgReady, "at", tab.Now(), "stage", "hello")
		s.Migration().Own()
		s.Migration().SetMigrator(migrator(w, g))
		go func() { // the relay's notice that the host is lost
			<-conn.Lost()
			s.Migration().ServerLost()
		}()
		return s, nil
	}
}

// conn returns the Conn of channel id.
func (w *worker) conn(id int) *tab.Conn {
	c := tab.NewConn(id, w.wake, func(m js.Value) { w.post(m) })
	w.mu.Lock()
	w.conns[id] = c
	w.mu.Unlock()
	return c
}

// migrator returns the session's migrate.Migrator: the page claims the
// room with the handover data's code and key and hands over the channel
// to the next host, or says this tab hosts the room now: the match's
// next server then runs here, resumed from h with game g, over the
// channels of the players the page hands over (hostConn).
func migrator[I any](w *worker, g rewind.Game[I]) migrate.Migrator[I] {
	return func(ctx context.Context, h client.Handoff) (migrate.Migrated[I], error) {
		answer := make(chan joinAnswer, 1)
		w.mu.Lock()
		w.claimN++
		n := w.claimN
		w.claims[n] = answer
		w.mu.Unlock()
		w.postKind(tab.MsgClaim, "n", n, "code", h.Handover.Code, "key", h.Handover.Key)
		select {
		case a := <-answer:
			if a.err != nil {
				return migrate.Migrated[I]{}, fmt.Errorf("claiming room %s: %w", h.Handover.Code, a.err)
			}
			if a.host {
				return resumeHost(g, w.host(), h)
			}
			c := w.conn(a.id)
			return migrate.Migrated[I]{Conn: c, Lost: c.Lost()}, nil
		case <-ctx.Done():
			return migrate.Migrated[I]{}, ctx.Err()
		}
	}
}

// claimAnswer hands the page's answer to a claim to its migrator.
func (w *worker) claimAnswer(m js.Value) {
	n := m.Get("n").Int()
	w.mu.Lock()
	ch := w.claims[n]
	delete(w.claims, n)
	w.mu.Unlock()
	if ch == nil {
		return
	}
	switch {
	case m.Get("t").String() == tab.MsgClaimed && m.Get("host").Truthy():
		ch <- joinAnswer{host: true}
	case m.Get("t").String() == tab.MsgClaimed:
		ch <- joinAnswer{id: m.Get("id").Int()}
	default:
		ch <- joinAnswer{err: errors.New(m.Get("err").String())}
	}
}
