package attack

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// LookupPrefix: issue 43's item 6. While code_guessing_fleet's attacker
// (250 addresses guessing by joins) keeps the relay's budget of failed
// joins spent, 6 people (short: 2), each from an address of their own,
// type a room's code into the page and pause after 6 of its 7
// characters: the page looks the prefix up, then the whole code, then
// joins, each over a WebSocket of its own as the page does. Before, the
// prefix's no_room was the address's failed join and the whole code was
// refused rate_limited (issue 43: 0 of 6). It holds if every person's
// whole code is found and joined.
func LookupPrefix(ctx context.Context, cfg Config) Result {
	r := Result{Name: "lookup_prefix"}
	rc := relay.RoomConfig{}.WithDefaults()
	t, err := startRelay(netutil.HTTPLimits{}, rc)
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: t.url})
	if err != nil {
		r.Err = err
		return r
	}
	defer host.Close()
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var g guessing
	var wg sync.WaitGroup
	g.run(actx, &wg, t.url)
	sleepCtx(ctx, pick(cfg, 300*time.Millisecond, 3*time.Second)) // the budget spent (600 guesses)
	people := pick(cfg, 2, 6)
	joined, prefixes := 0, map[string]int{}
	code := host.Code()
	for p := range people {
		ip := net.IPv4(127, 0, 4, byte(10+p))
		prefix, found, ok := pageJoin(ctx, t.url, ip, code)
		prefixes[prefix]++
		if found && ok {
			joined++
		}
	}
	cancel()
	wg.Wait()
	r.add("guesses_answered", g.answered.Load())
	r.add("guesses_refused", g.refused.Load())
	r.add("prefix_answers", fmt.Sprint(prefixes))
	r.add("people_joined", fmt.Sprintf("%d/%d", joined, people))
	r.Held = joined == people && g.refused.Load() > 0
	return r
}

// pageJoin is the page's join field from ip: a lookup of code's first 6
// characters, one of the whole code, then the join, each over a new
// WebSocket. It returns the prefix's answer, whether the code was found
// and whether the join was.
func pageJoin(ctx context.Context, url string, ip net.IP, code string) (prefix string, found, joined bool) {
	ask := func(msg string) wsMsg {
		c, err := dialFrom(ctx, url, ip)
		if err != nil {
			return wsMsg{Error: "dial"}
		}
		defer c.CloseNow()
		m, err := wsAsk(ctx, c, msg)
		if err != nil {
			return wsMsg{Error: "closed"}
		}
		return m
	}
	m := ask(fmt.Sprintf(`{"type":"lookup","v":2,"code":%q}`, code[:6]))
	prefix = m.Type
	if m.Error != "" {
		prefix = m.Error
	}
	found = ask(fmt.Sprintf(`{"type":"lookup","v":2,"code":%q}`, code)).Type == roomproto.MsgFound
	joined = ask(fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code)).Type == roomproto.MsgJoined
	return prefix, found, joined
}
