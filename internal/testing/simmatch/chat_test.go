package simmatch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// chatRig is a server and n clients over a simulated network, stepped a
// millisecond at a time in made-up time, collecting what each client
// receives of the match messages.
type chatRig struct {
	t       *testing.T
	net     *transport.SimNetwork
	srv     *server.Server[testgame.Input]
	clients []*client.Client[testgame.Input]
	got     [][]client.ChatMessage
	now     time.Time
}

func newChatRig(t *testing.T, n int, link transport.LinkConfig, cfg server.Config) *chatRig {
	t.Helper()
	r := &chatRig{t: t, net: transport.NewSimNetwork(4, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	r.now = r.net.Now()
	r.net.SetDefaultLink(link)
	sconn, err := r.net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sconn.Close() })
	cfg.StartPlayers = n
	if r.srv, err = server.New[testgame.Input](&testgame.Game{}, sconn, cfg); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c := simClient(t, r.net, fmt.Sprintf("c%d", i))
		c.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(game.PlayerID(i), u) })
		r.clients = append(r.clients, c)
	}
	r.got = make([][]client.ChatMessage, n)
	return r
}

// step runs everything for a millisecond, then calls each.
func (r *chatRig) step(each func()) {
	r.now = r.now.Add(time.Millisecond)
	r.net.Advance(r.now)
	if err := r.srv.Update(r.now); err != nil {
		r.t.Fatal(err)
	}
	for i, c := range r.clients {
		if err := c.Update(r.now); err != nil {
			r.t.Fatalf("client %d: %v", i, err)
		}
		r.got[i] = append(r.got[i], c.Chat()...)
	}
	if each != nil {
		each()
	}
}

// TestChatThroughLoss: two clients say 500 lines each through 20 % loss
// (50 ms ± 10 one way): each receives every line of both, once, in the
// order each sender said them, with the senders' names. (Both are in
// first: a line said before a player joins reaches it only through the
// backlog, TestChatBacklog.)
func TestChatThroughLoss(t *testing.T) {
	r := newChatRig(t, 2, transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.2},
		server.Config{ChatRate: 1000, ChatBurst: 1000})
	const lines = 500
	for !r.clients[0].Playing() || !r.clients[1].Playing() {
		r.step(nil)
	}
	said := []int{0, 0}
	named := false
	for end := r.now.Add(5 * time.Minute); r.now.Before(end); {
		r.step(func() {
			for i, c := range r.clients {
				if !named {
					_ = c.SetName(fmt.Sprintf("p%d", i))
				}
				for said[i] < lines && c.Say(fmt.Sprintf("line %d from %d", said[i], i)) == nil {
					said[i]++
				}
			}
			named = true
		})
		if len(r.got[0]) >= 2*lines+2 && len(r.got[1]) >= 2*lines+2 {
			break
		}
	}
	for recv, msgs := range r.got {
		next := []int{0, 0}
		for _, m := range msgs {
			if m.Kind == codec.ChatName {
				continue
			}
			from := -1
			for i, c := range r.clients {
				if id, _ := c.Player(); id == m.From {
					from = i
				}
			}
			if from < 0 || m.Kind != codec.ChatText || m.Text != fmt.Sprintf("line %d from %d", next[from], from) {
				t.Fatalf("client %d: got %+v, want line %d from %d", recv, m, next[max(from, 0)], from)
			}
			if m.Name != fmt.Sprintf("p%d", from) {
				t.Fatalf("client %d: line from %d named %q", recv, from, m.Name)
			}
			next[from]++
		}
		if next[0] != lines || next[1] != lines {
			t.Errorf("client %d received %v lines, want %d from each", recv, next, lines)
		}
	}
	if st := r.srv.Stats(); st.ChatLines != 2*lines || st.ChatRefused != 0 {
		t.Errorf("server relayed %d lines, refused %d", st.ChatLines, st.ChatRefused)
	}
}

// TestChatRefused: an oversized line, invalid UTF-8, a control character
// and lines over the rate limit (2 a second, 5 at once) are refused with
// a reason to the sender alone, which stays in the match.
func TestChatRefused(t *testing.T) {
	r := newChatRig(t, 2, transport.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.05}, server.Config{})
	for !r.clients[0].Playing() || !r.clients[1].Playing() {
		r.step(nil)
	}
	c := r.clients[0]
	for _, s := range []string{strings.Repeat("x", 220), "bad \xff byte", "bell \a", "ok 1", "ok 2", "ok 3", "ok 4", "ok 5", "ok 6", "ok 7"} {
		if err := c.Say(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Say(strings.Repeat("y", 300)); err == nil {
		t.Error("a 300-byte line was queued: it cannot go on the wire")
	}
	for range 2000 {
		r.step(nil)
	}
	var reasons []string
	ok := 0
	for _, m := range r.got[0] {
		switch m.Kind {
		case codec.ChatRefused:
			reasons = append(reasons, m.Text)
		case codec.ChatText:
			ok++
		}
	}
	want := []string{"too long", "invalid UTF-8", "control characters", "too many lines: slow down", "too many lines: slow down"}
	if strings.Join(reasons, "|") != strings.Join(want, "|") || ok != 5 {
		t.Errorf("refused %q, %d relayed; want %q and 5", reasons, ok, want)
	}
	for _, m := range r.got[1] {
		if m.Kind == codec.ChatRefused {
			t.Errorf("client 1 heard client 0's refusal %q", m.Text)
		}
	}
	before := c.Stats().Verified
	for range 500 {
		r.step(nil)
	}
	if !c.Playing() || c.Stats().Verified < before+25 {
		t.Errorf("the refused sender is not playing on: verified %d then %d", before, c.Stats().Verified)
	}
}

// TestReadyStartEnd: players say they are ready (the server's Ready holds
// it and every player hears it), then the host announces the start and
// the end with results: every player receives them in that order, from
// codec.ChatServer; an announcement of another kind is refused.
func TestReadyStartEnd(t *testing.T) {
	r := newChatRig(t, 2, transport.LinkConfig{Latency: 30 * time.Millisecond, Loss: 0.2}, server.Config{})
	for !r.clients[0].Playing() || !r.clients[1].Playing() {
		r.step(nil)
	}
	for _, c := range r.clients {
		if err := c.SetReady(true); err != nil {
			t.Fatal(err)
		}
	}
	for range 1000 {
		r.step(nil)
	}
	if got := bitsCount(r.srv.Ready()); got != 2 {
		t.Fatalf("server holds %d players ready (%b), want 2", got, r.srv.Ready())
	}
	if err := r.srv.Announce(codec.ChatStart, "go"); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.Announce(codec.ChatEnd, "winner=1 score=3:2"); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.Announce(codec.ChatText, "x"); err == nil {
		t.Error("the server announced a chat line of its own")
	}
	for range 1000 {
		r.step(nil)
	}
	for i, msgs := range r.got {
		var seq []string
		for _, m := range msgs {
			seq = append(seq, fmt.Sprintf("%d:%d:%s", m.Kind, m.From, m.Text))
		}
		got := strings.Join(seq, " ")
		if strings.Count(got, fmt.Sprintf("%d:", codec.ChatReady)) != 2 ||
			!strings.HasSuffix(got, fmt.Sprintf("%d:255:go %d:255:winner=1 score=3:2", codec.ChatStart, codec.ChatEnd)) {
			t.Errorf("client %d received %q", i, got)
		}
	}
}

func bitsCount(v uint64) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// TestChatBacklog: lines said before a player joins reach it when it
// joins (the server's ChatBacklog, here 2: only the latest two), before
// the lines said after, each once.
func TestChatBacklog(t *testing.T) {
	r := newChatRig(t, 1, transport.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.1},
		server.Config{ChatBacklog: 2, ChatRate: 100, ChatBurst: 100})
	for !r.clients[0].Playing() {
		r.step(nil)
	}
	for i := range 3 {
		if err := r.clients[0].Say(fmt.Sprintf("before %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for len(r.got[0]) < 3 {
		r.step(nil)
	}
	late := simClient(t, r.net, "late")
	late.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(1, u) })
	r.clients = append(r.clients, late)
	r.got = append(r.got, nil)
	for !late.Playing() {
		r.step(nil)
	}
	if err := r.clients[0].Say("after"); err != nil {
		t.Fatal(err)
	}
	for end := r.now.Add(time.Minute); r.now.Before(end) && len(r.got[1]) < 3; {
		r.step(nil)
	}
	for range 500 {
		r.step(nil) // nothing more arrives
	}
	var got []string
	for _, m := range r.got[1] {
		if m.Kind == codec.ChatText {
			got = append(got, m.Text)
		}
	}
	if want := "before 1|before 2|after"; strings.Join(got, "|") != want {
		t.Errorf("the late player got %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestChatBacklogNamesReady: a player who joins later hears the names and ready
// flags given so far, then the last lines said before it came in (the
// backlog), each once and in order, then what is said after.
func TestChatBacklogNamesReady(t *testing.T) {
	r := newChatRig(t, 1, transport.LinkConfig{Latency: 30 * time.Millisecond, Loss: 0.2}, server.Config{})
	c0 := r.clients[0]
	for !c0.Playing() {
		r.step(nil)
	}
	_ = c0.SetName("ann")
	_ = c0.SetReady(true)
	for i := range chatBacklogTest + 3 {
		_ = c0.Say(fmt.Sprintf("early %d", i))
		for range 600 { // the rate limit: 2 lines a second
			r.step(nil)
		}
	}
	late := simClient(t, r.net, "late")
	r.clients = append(r.clients, late)
	r.got = append(r.got, nil)
	for !late.Playing() {
		r.step(nil)
	}
	_ = c0.Say("after")
	for range 2000 {
		r.step(nil)
	}
	var seq []string
	for _, m := range r.got[1] {
		seq = append(seq, fmt.Sprintf("%d:%s", m.Kind, m.Text))
	}
	want := []string{fmt.Sprintf("%d:ann", codec.ChatName), fmt.Sprintf("%d:1", codec.ChatReady)}
	for i := 3; i < chatBacklogTest+3; i++ {
		want = append(want, fmt.Sprintf("%d:early %d", codec.ChatText, i))
	}
	want = append(want, fmt.Sprintf("%d:after", codec.ChatText))
	if strings.Join(seq, "|") != strings.Join(want, "|") {
		t.Errorf("the late player received\n%q\nwant\n%q", seq, want)
	}
}

// chatBacklogTest is the server's default ChatBacklog.
const chatBacklogTest = 32
