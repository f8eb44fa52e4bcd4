package rewind_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// Move is a test game message: 6 bytes.
type Move struct {
	N    uint32
	X, Y int8
}

// Other is a game message type the test game does not register.
type Other struct{ A uint16 }

var (
	moveType, _  = rewind.NewMessageType[Move](9)
	otherType, _ = rewind.NewMessageType[Other](10)
	// shortMove claims Move's type id with another size.
	shortMove, _ = rewind.NewMessageType[Other](9)
)

// messagingGame is the test game registering Move.
type messagingGame struct{ testgame.Game }

func (*messagingGame) MatchMessages() []rewind.MessageSpec {
	return []rewind.MessageSpec{moveType.Spec()}
}

// messageRig is a Host and n sessions over a simulated network, in made-up
// time, collecting what each session receives.
type messageRig struct {
	t        *testing.T
	net      *transport.SimNetwork
	host     *rewind.Host[testgame.Input]
	sessions []*rewind.Session[testgame.Input]
	got      [][]rewind.ChatMessage
	now      time.Time
}

func newMessageRig(t *testing.T, n int, link transport.LinkConfig, cfg server.Config) *messageRig {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &messageRig{t: t, net: transport.NewSimNetwork(11, start), now: start, got: make([][]rewind.ChatMessage, n)}
	r.net.SetDefaultLink(link)
	sconn, _ := r.net.Listen("server")
	cfg.StartPlayers = n
	var err error
	if r.host, err = rewind.NewHost[testgame.Input](&messagingGame{}, sconn, rewind.HostOptions{Server: cfg}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.host.Close() })
	for i := range n {
		s, err := rewind.Connect[testgame.Input](&messagingGame{}, mustDial(t, r.net, fmt.Sprintf("p%d", i)), rewind.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		r.sessions = append(r.sessions, s)
	}
	for !r.playing() {
		r.step()
	}
	return r
}

func (r *messageRig) playing() bool {
	for _, s := range r.sessions {
		if s.State() != rewind.Playing {
			return false
		}
	}
	return true
}

func (r *messageRig) step() {
	r.now = r.now.Add(time.Millisecond)
	r.net.Advance(r.now)
	if err := r.host.Update(r.now); err != nil {
		r.t.Fatal(err)
	}
	for i, s := range r.sessions {
		if err := s.Update(r.now); err != nil {
			r.t.Fatalf("player %d: %v", i, err)
		}
		r.got[i] = append(r.got[i], s.Chat()...)
	}
}

// TestGameMessagesThroughLoss: two players send 300 typed game messages
// each through 20 % loss (50 ms ± 10 one way), and the host announces
// one of its own: every player decodes every message once, in the order
// each sender sent them, and nothing else.
func TestGameMessagesThroughLoss(t *testing.T) {
	r := newMessageRig(t, 2, transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.2},
		server.Config{MessageRate: 1000, MessageBurst: 1000})
	const each = 300
	sent := []int{0, 0}
	announced := false
	for end := r.now.Add(2 * time.Minute); r.now.Before(end) && (len(r.got[0]) < 2*each+1 || len(r.got[1]) < 2*each+1); {
		for i, s := range r.sessions {
			for sent[i] < each && rewind.SendMessage(s, moveType, Move{N: uint32(sent[i]), X: int8(i), Y: -1}) == nil {
				sent[i]++
			}
		}
		if !announced && sent[0] == each && sent[1] == each {
			if err := rewind.AnnounceMessage(r.host, moveType, Move{N: 1 << 30}); err != nil {
				t.Fatal(err)
			}
			announced = true
		}
		r.step()
	}
	ids := make(map[rewind.PlayerID]int)
	for i, s := range r.sessions {
		id, _ := s.Player()
		ids[id] = i
	}
	for recv, msgs := range r.got {
		next := []int{0, 0}
		host := 0
		for _, m := range msgs {
			v, ok := moveType.Decode(m)
			switch {
			case !ok:
				t.Fatalf("player %d: %+v is not a Move", recv, m)
			case m.From == rewind.ChatServer && v.N == 1<<30:
				host++
				continue
			}
			from := ids[m.From]
			if v.N != uint32(next[from]) || v.X != int8(from) || v.Y != -1 {
				t.Fatalf("player %d: from player %d got %+v, want N=%d", recv, from, v, next[from])
			}
			next[from]++
		}
		if next[0] != each || next[1] != each || host != 1 {
			t.Errorf("player %d decoded %v moves and %d of the host's, want %d each and 1", recv, next, host, each)
		}
	}
	if st := r.host.Stats().Match; st.GameMessages != 2*each || st.ChatRefused != 0 {
		t.Errorf("host relayed %d game messages, refused %d", st.GameMessages, st.ChatRefused)
	}
}

// TestGameMessagesRefused: a type the game did not register, a registered
// type of the wrong size and messages over the rate (20 a second, 40 at
// once) are refused with a reason to the sender alone, which plays on;
// ready, start and end go through the Host.
func TestGameMessagesRefused(t *testing.T) {
	r := newMessageRig(t, 2, transport.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.05}, server.Config{})
	s := r.sessions[0]
	if err := rewind.SendMessage(s, otherType, Other{A: 1}); err != nil {
		t.Fatal(err)
	}
	if err := rewind.SendMessage(s, shortMove, Other{A: 2}); err != nil {
		t.Fatal(err)
	}
	for i := range 45 {
		if err := rewind.SendMessage(s, moveType, Move{N: uint32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	_ = r.sessions[1].SetReady(true)
	for range 1000 {
		r.step()
	}
	var reasons []string
	relayed := 0
	for _, m := range r.got[0] {
		switch {
		case m.Kind == rewind.ChatRefused:
			reasons = append(reasons, m.Text)
		case m.Kind == rewind.ChatGame:
			relayed++
		}
	}
	want := "no game message of type 10|game message of type 9: 2 bytes, want 6|"
	if got := strings.Join(reasons, "|"); !strings.HasPrefix(got, want) || relayed < 40 || relayed > 42 ||
		strings.Count(got, "too many game messages: slow down") != 45-relayed {
		t.Errorf("refused %q, %d relayed; want %q, 40..42 relayed and the rest too many", got, relayed, want)
	}
	for _, m := range r.got[1] {
		if m.Kind == rewind.ChatRefused {
			t.Errorf("player 1 heard player 0's refusal %q", m.Text)
		}
	}
	id1, _ := r.sessions[1].Player()
	if r.host.Ready() != 1<<id1 {
		t.Errorf("host Ready %b, want player %d", r.host.Ready(), id1)
	}
	if err := r.host.Announce(rewind.ChatEnd, "winner=1"); err != nil {
		t.Fatal(err)
	}
	if err := r.host.Announce(rewind.ChatGame, "\x09abcdef"); err == nil {
		t.Error("Host.Announce sent a game message: that is AnnounceMessage's")
	}
	before := s.Stats().Verified
	for range 500 {
		r.step()
	}
	if last := r.got[1][len(r.got[1])-1]; last.Kind != rewind.ChatEnd || last.From != rewind.ChatServer || last.Text != "winner=1" {
		t.Errorf("player 1's last message %+v, want the host's end", last)
	}
	if s.State() != rewind.Playing || s.Stats().Verified < before+25 {
		t.Errorf("the refused sender is not playing on: %v, verified %d then %d", s.State(), before, s.Stats().Verified)
	}
}

// FuzzMessageDecode: Decode reads whatever a peer sent without panicking,
// and what it accepts encodes back to the same bytes.
func FuzzMessageDecode(f *testing.F) {
	f.Add(uint8(9), []byte{1, 0, 0, 0, 2, 0xfe})
	f.Add(uint8(9), []byte{1})
	f.Fuzz(func(t *testing.T, typ uint8, b []byte) {
		m := rewind.ChatMessage{Kind: rewind.ChatGame, Type: typ, Text: string(b)}
		v, ok := moveType.Decode(m)
		if !ok {
			return
		}
		if typ != 9 || len(b) != 6 || v.N != uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24 || v.X != int8(b[4]) || v.Y != int8(b[5]) {
			t.Fatalf("type %d %x decoded as %+v", typ, b, v)
		}
	})
}
