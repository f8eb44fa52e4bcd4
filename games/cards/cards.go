// Package cards is rewind's example of a game with hidden information: a
// small card game for 2–6 players in which each player's hand is a
// private scene only that player sees, and the deck's order and the
// dealer's hole card live in a server-only scene no player sees
// (docs/scenes.md). It is written only against rewind's public contract.
//
// The rules, exactly:
//
//  1. Events: a join gives the player the seat of its id, holding the hand
//     of the same number (the hand's scene is shown to that player only);
//     a leave empties the seat's hand and hides it from everyone.
//  2. Deal: when no round is dealt and two or more players are present,
//     the server-only generator makes a deck of 52 cards (values 1–52,
//     each with a fresh random 32-bit nonce: what makes a card's bytes
//     recognizable), shuffles it, puts the top card aside as the hole
//     card and deals 3 cards to every present seat, in seat order.
//  3. Actions: a present player whose input's Seq differs from the last
//     one it acted on acts once: Draw takes the deck's top card into its
//     hand; Play moves the card of its hand at Arg to the public table and
//     scores its value; Swap exchanges hands with the player at seat Arg
//     (present, not itself): each now sees the other's hand, and no
//     longer its own — a change of a scene's viewers in mid-match.
//  4. End of a round: when the deck holds fewer than 10 cards, the hole
//     card is shown on the table, the hands are emptied and the next tick
//     deals again (rule 2, the generator going on).
//  5. Every present player's private Note is written into the hand it
//     holds: the note goes from the player to the server only, and back
//     only to whoever holds that hand.
//
// A client sees zeros where the deck and the hole card are, and the hands
// of the others empty: its Step deals from a deck it does not know and
// draws nothing, so every deal and draw mispredicts what it sees (the
// hand counts, its own hand) until the server's world repairs it. That is
// the cost of hidden information this example measures (rewind-bench
// private).
package cards

import (
	"fmt"
	"strings"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// Sizes of the game.
const (
	// MaxPlayers is the most seats at the table.
	MaxPlayers = 6
	// HandCap is the most cards a hand holds.
	HandCap = 12
	// DeckSize is the cards of a fresh deck.
	DeckSize = 52
	// Deal is the cards each seat is dealt.
	Deal = 3
	// LowDeck ends a round when the deck holds fewer cards.
	LowDeck = 10
)

// Actions of an input.
const (
	None uint8 = iota
	Draw
	Play
	Swap
)

// Input is one player's input: an action, done once each time Seq
// changes, and a private note that goes to the server only (never
// relayed to the other players) and is kept in the hand the player
// holds, for its holder's eyes.
type Input struct {
	Action uint8 `rewind:"max=3"`
	Arg    uint8 `rewind:"max=11"`
	Seq    uint8
	Note   uint32 `rewind:"private"`
}

// Card is one card (8 bytes): its value, the seat that played it (on the
// table), and a random nonce drawn when the deck was made, which makes a
// card's bytes recognizable wherever they travel.
type Card struct {
	Nonce uint32
	Value uint8
	Owner uint8
	_     [2]byte
}

// State is the public state.
type State struct {
	Round    uint32
	Scores   [MaxPlayers]int32
	HandOf   [MaxPlayers]uint8 // the hand each seat holds
	HandLen  [MaxPlayers]uint8 // cards in each seat's hand (public)
	LastSeq  [MaxPlayers]uint8 // the Seq each seat last acted on
	DeckLeft uint8
	Dealt    uint8
}

// Game is the card game. Build it with New; one value serves any number
// of worlds.
type Game struct {
	state  world.Value[State]
	table  world.Table[Card]
	hands  [MaxPlayers]world.Scene
	hand   [MaxPlayers]world.Table[Card]
	note   [MaxPlayers]world.Value[uint32] // the holder's private note, in the hand's scene
	secret world.Scene
	deck   world.Table[Card]
	hole   world.Value[Card]
	rng    world.RNG
	public bool
}

// New returns the card game.
func New() *Game { return &Game{} }

// NewPublic returns the same game with every hand, the deck and the hole
// card in the public scene: every player is sent everything. It exists to
// measure what hiding costs (rewind-bench private --public).
func NewPublic() *Game { return &Game{public: true} }

// show sets who sees hand h (nothing to set when everything is public).
func (g *Game) show(w *world.World, h uint8, players uint64) {
	if !g.public {
		g.hands[h].SetViewers(w, players)
	}
}

// Register declares the public state and table, a private scene per hand
// and the server-only scene of the deck, the hole card and the generator.
func (g *Game) Register(s *world.Schema) error {
	g.state = world.AddValue[State](s, "state")
	g.table = world.AddTable[Card](s, "table", DeckSize+1)
	for i := range g.hands {
		if !g.public {
			g.hands[i] = s.AddScene(fmt.Sprintf("hand%d", i), world.ScenePrivate)
		}
		g.hand[i] = world.AddTable[Card](s, fmt.Sprintf("hand%d", i), HandCap, g.hands[i])
		g.note[i] = world.AddValue[uint32](s, fmt.Sprintf("note%d", i), g.hands[i])
	}
	if !g.public {
		g.secret = s.AddScene("dealer", world.SceneServer)
	}
	g.deck = world.AddTable[Card](s, "deck", DeckSize, g.secret)
	g.hole = world.AddValue[Card](s, "hole", g.secret)
	g.rng = world.AddRNG(s, "rng", g.secret)
	return s.Err()
}

// Setup seats nobody: the state starts zero.
func (g *Game) Setup(w *world.World) error {
	st := g.state.Ptr(w)
	for i := range st.HandOf {
		st.HandOf[i] = uint8(i)
	}
	return nil
}

// SetupSecrets seeds the dealer's generator: only the server runs it.
func (g *Game) SetupSecrets(w *world.World, secret [32]byte) { g.rng.SeedBytes(w, secret) }

// Step runs one tick (the rules in the package doc).
func (g *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	st := g.state.Ptr(w)
	for _, e := range t.Events {
		p := int(e.Player)
		if p >= MaxPlayers {
			continue
		}
		h := st.HandOf[p]
		if e.Kind == rewind.Join {
			g.show(w, h, 1<<p)
			continue
		}
		g.hand[h].Clear(w)
		st.HandLen[p] = 0
		g.show(w, h, 0)
	}
	present := 0
	for p := 0; p < MaxPlayers && p < len(t.Present); p++ {
		if t.Present[p] {
			present++
		}
	}
	if st.Dealt == 0 && present >= 2 {
		g.deal(w, st, t.Present)
	}
	for p := 0; p < MaxPlayers && p < len(t.Inputs); p++ {
		in := t.Inputs[p]
		if !t.Present[p] || in.Seq == st.LastSeq[p] {
			continue
		}
		st.LastSeq[p] = in.Seq
		g.act(w, st, p, in, t.Present)
	}
	if st.Dealt != 0 && st.DeckLeft < LowDeck {
		g.endRound(w, st)
	}
	for p := 0; p < MaxPlayers && p < len(t.Inputs); p++ {
		if t.Present[p] {
			g.note[st.HandOf[p]].Set(w, t.Inputs[p].Note)
		}
	}
}

// deal makes, shuffles and deals a deck.
func (g *Game) deal(w *world.World, st *State, present []bool) {
	g.deck.Clear(w)
	for v := 1; v <= DeckSize; v++ {
		_, _ = g.deck.Add(w, Card{Nonce: uint32(g.rng.Uint64(w)) | 1<<31, Value: uint8(v)})
	}
	cards := g.deck.All(w)
	for i := len(cards) - 1; i > 0; i-- {
		j := g.rng.IntN(w, i+1)
		cards[i], cards[j] = cards[j], cards[i]
	}
	if c, ok := g.pop(w); ok {
		g.hole.Set(w, c)
	}
	for range Deal {
		for p := 0; p < MaxPlayers && p < len(present); p++ {
			if present[p] {
				g.draw(w, st, p)
			}
		}
	}
	st.Dealt = 1
	st.DeckLeft = uint8(g.deck.Len(w))
}

// pop takes the deck's top card.
func (g *Game) pop(w *world.World) (Card, bool) {
	n := g.deck.Len(w)
	if n == 0 {
		return Card{}, false
	}
	c := g.deck.Get(w, n-1)
	g.deck.Truncate(w, n-1)
	return c, true
}

// draw moves the deck's top card into seat p's hand.
func (g *Game) draw(w *world.World, st *State, p int) {
	h := g.hand[st.HandOf[p]]
	if h.Len(w) >= HandCap {
		return
	}
	if c, ok := g.pop(w); ok {
		_, _ = h.Add(w, c)
		st.HandLen[p]++
	}
	st.DeckLeft = uint8(g.deck.Len(w))
}

// act does seat p's action.
func (g *Game) act(w *world.World, st *State, p int, in Input, present []bool) {
	switch in.Action {
	case Draw:
		if st.Dealt != 0 {
			g.draw(w, st, p)
		}
	case Play:
		h := g.hand[st.HandOf[p]]
		if int(in.Arg) >= h.Len(w) {
			return
		}
		c := h.Get(w, int(in.Arg))
		h.Remove(w, int(in.Arg))
		st.HandLen[p]--
		c.Owner = uint8(p)
		_, _ = g.table.Add(w, c)
		st.Scores[p] += int32(c.Value)
	case Swap:
		q := int(in.Arg)
		if q == p || q >= MaxPlayers || q >= len(present) || !present[q] {
			return
		}
		st.HandOf[p], st.HandOf[q] = st.HandOf[q], st.HandOf[p]
		st.HandLen[p], st.HandLen[q] = st.HandLen[q], st.HandLen[p]
		g.show(w, st.HandOf[p], 1<<p)
		g.show(w, st.HandOf[q], 1<<q)
	}
}

// endRound shows the hole card and empties the hands and the table.
func (g *Game) endRound(w *world.World, st *State) {
	g.table.Clear(w)
	hole := g.hole.Get(w)
	hole.Owner = 0xff
	_, _ = g.table.Add(w, hole)
	g.hole.Set(w, Card{})
	for p := range MaxPlayers {
		g.hand[st.HandOf[p]].Clear(w)
		st.HandLen[p] = 0
	}
	g.deck.Clear(w)
	st.DeckLeft = 0
	st.Dealt = 0
	st.Round++
}

// Bot is the headless bot's input for seat p at tick t: an action every
// 40 ticks (seats offset), cycling draw, play, draw, swap with the next
// seat, draw, play.
func Bot(p rewind.PlayerID, t uint32) Input {
	k := (t + uint32(p)*7) / 40
	in := Input{Seq: uint8(k), Note: BotNote(p, k)}
	switch k % 6 {
	case 0, 2, 4:
		in.Action = Draw
	case 1, 5:
		in.Action, in.Arg = Play, uint8(k%3)
	case 3:
		in.Action, in.Arg = Swap, uint8((int(p)+1)%2)
	}
	return in
}

// BotNote is the bot's private note for seat p's k-th action: a
// recognizable value (0xC0DE in the high half) that a leak test searches
// for in what the other players are sent.
func BotNote(p rewind.PlayerID, k uint32) uint32 { return 0xC0DE0000 | uint32(p)<<8 | k&0xff }

// ViewHash returns the hash of what seat p sees of w: the hash the server
// sends p each tick.
func ViewHash(w *world.World, p int) uint64 { return w.ViewHash(w.ViewOf(p)) }

// Render draws what seat p sees of w as text: the round, scores and hand
// counts, the table, and p's hand.
func (g *Game) Render(w *world.World, p int) string {
	var b strings.Builder
	st := g.state.Get(w)
	fmt.Fprintf(&b, "round %d deck %d\n", st.Round, st.DeckLeft)
	for s := range MaxPlayers {
		if st.HandLen[s] > 0 || st.Scores[s] != 0 {
			fmt.Fprintf(&b, "seat %d: %d cards, score %d\n", s, st.HandLen[s], st.Scores[s])
		}
	}
	b.WriteString("table:")
	for _, c := range g.table.All(w) {
		fmt.Fprintf(&b, " %d", c.Value)
	}
	if p >= 0 && p < MaxPlayers {
		fmt.Fprintf(&b, "\nhand of seat %d:", p)
		for _, c := range g.hand[st.HandOf[p]].All(w) {
			fmt.Fprintf(&b, " %d", c.Value)
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// Secrets appends the cards of w that seat p may not know (the deck, the
// hole card, and every hand but the one p holds) to dst: what a leak test
// searches for in what p is sent. They are the game's secrets whatever
// the scenes: NewPublic sends them all, and a leak test must find them.
func (g *Game) Secrets(w *world.World, p int, dst []Card) []Card {
	dst = append(dst, g.deck.All(w)...)
	if h := g.hole.Get(w); h.Nonce != 0 {
		dst = append(dst, h)
	}
	mine := uint8(0xff)
	if p >= 0 && p < MaxPlayers {
		mine = g.state.Get(w).HandOf[p]
	}
	for i := range MaxPlayers {
		if uint8(i) != mine {
			dst = append(dst, g.hand[i].All(w)...)
		}
	}
	return dst
}

// Visible appends the cards seat p may know in w to dst: the table and
// the hand it holds.
func (g *Game) Visible(w *world.World, p int, dst []Card) []Card {
	dst = append(dst, g.table.All(w)...)
	if p >= 0 && p < MaxPlayers {
		dst = append(dst, g.hand[g.state.Get(w).HandOf[p]].All(w)...)
	}
	return dst
}

// RNGState returns the dealer's generator state words (secret: whoever
// knew them would know every shuffle to come).
func (g *Game) RNGState(w *world.World) [4]uint64 { return g.rng.State(w) }

// HandOf returns the hand seat p holds in w (hands are swapped by Swap).
func (g *Game) HandOf(w *world.World, p int) int { return int(g.state.Get(w).HandOf[p]) }

// Note returns the private note kept in the hand seat p holds.
func (g *Game) Note(w *world.World, p int) uint32 { return g.note[g.state.Get(w).HandOf[p]].Get(w) }
