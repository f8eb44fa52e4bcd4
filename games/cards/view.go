package cards

import (
	"fmt"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
)

// Size returns the canvas the view would like.
func (g *Game) Size() (w, h int) { return 560, 420 }

// The cards' sizes on the canvas: a hand's and the table's.
const (
	handW, handH, handGap = 52, 72, 8
	tableW, tableH        = 36, 50
)

// handRect returns the place of the i-th card of the viewer's hand on a
// canvas width×height: a row along the bottom.
func handRect(i, height int) (x, y, w, h int) {
	return 12 + i*(handW+handGap), height - handH - 12, handW, handH
}

// CardName returns a card's rank and suit in ASCII ("AS", "10H"): values
// 1–13 are spades, 14–26 hearts, 27–39 diamonds, 40–52 clubs.
func CardName(value uint8) string {
	if value < 1 || value > DeckSize {
		return "?"
	}
	ranks := [...]string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
	return ranks[(value-1)%13] + string("SHDC"[(value-1)/13])
}

// drawCard draws a card face at (x, y), w×h, rimmed in c.
func drawCard(l *draw.List, x, y, w, h int, value uint8, c draw.Color) {
	l.FillRect(x, y, w, h, draw.RGB(236, 232, 220))
	l.Rect(x, y, w, h, c)
	ink := draw.RGB(20, 20, 30)
	if s := (value - 1) / 13; s == 1 || s == 2 {
		ink = draw.RGB(200, 30, 40)
	}
	l.Text(x+5, y+4+draw.Ascent, CardName(value), ink)
}

// Draw draws what v's viewer sees (its own hand only: the others' are
// hidden from it, docs/scenes.md): the round and the deck, each seat's
// cards and score, the cards on the table (the last ones played, each
// rimmed in its player's colour) and the viewer's hand along the bottom
// with the keys that play them.
func (g *Game) Draw(v rewind.View, l *draw.List) {
	l.Clear(draw.RGB(16, 60, 36))
	st := g.state.Get(v.Cur)
	l.Text(12, 8+draw.Ascent, fmt.Sprintf("round %d  deck %d", st.Round, st.DeckLeft), draw.White)
	row := 1
	for s := range MaxPlayers {
		if st.HandLen[s] == 0 && st.Scores[s] == 0 && s != v.Me {
			continue
		}
		line := fmt.Sprintf("seat %d: %d cards, score %d", s, st.HandLen[s], st.Scores[s])
		if s == v.Me {
			line += "  (you)"
		}
		l.Text(12, 8+draw.Ascent+row*draw.LineHeight, line, draw.PlayerColor(s))
		row++
	}
	table := g.table.All(v.Cur)
	y := 16 + (MaxPlayers+1)*draw.LineHeight
	l.Text(12, y-4, "table:", draw.White)
	perRow := max(1, (v.Width-24)/(tableW+4))
	from := max(0, len(table)-2*perRow)
	for i, c := range table[from:] {
		col := draw.White
		if c.Owner != 0xff {
			col = draw.PlayerColor(int(c.Owner))
		}
		drawCard(l, 12+(i%perRow)*(tableW+4), y+(i/perRow)*(tableH+4), tableW, tableH, c.Value, col)
	}
	if v.Me < 0 || v.Me >= MaxPlayers {
		return
	}
	for i, c := range g.hand[st.HandOf[v.Me]].All(v.Cur) {
		x, y, w, h := handRect(i, v.Height)
		drawCard(l, x, y, w, h, c.Value, draw.PlayerColor(v.Me))
		if i < 4 {
			l.Text(x+w/2-3, y+h-6, fmt.Sprint(i+1), draw.RGB(90, 90, 90))
		}
	}
	_, hy, _, _ := handRect(0, v.Height)
	l.Text(12, hy-8, "space: draw   1-4 or click: play   shift: swap hands with the next seat", draw.RGB(200, 220, 200))
}

// Control returns the input of controls c: fire (space) draws a card,
// the keys 1–4 (or a click on a card of the hand) play that card, alt
// (shift) swaps hands with the next seat that holds cards. An action
// goes once per press: a new one takes the next Seq, the same one held
// keeps prev's.
func (g *Game) Control(v rewind.View, c draw.Controls, prev Input) Input {
	in := Input{Seq: prev.Seq}
	switch {
	case c.Number() > 0:
		in.Action, in.Arg = Play, uint8(c.Number()-1)
	case c.Has(draw.PointerDown):
		for i := range HandCap {
			x, y, w, h := handRect(i, int(c.Height))
			if int(c.X) >= x && int(c.X) < x+w && int(c.Y) >= y && int(c.Y) < y+h {
				in.Action, in.Arg = Play, uint8(i)
			}
		}
	case c.Has(draw.Fire):
		in.Action = Draw
	case c.Has(draw.Alt):
		in.Action, in.Arg = Swap, g.nextSeat(v)
	}
	if in.Action != None && (in.Action != prev.Action || in.Arg != prev.Arg) {
		in.Seq++
	}
	return in
}

// nextSeat returns the seat after the viewer's that holds cards (or the
// next seat).
func (g *Game) nextSeat(v rewind.View) uint8 {
	if v.Me < 0 || v.Cur == nil {
		return 0
	}
	st := g.state.Get(v.Cur)
	for k := 1; k < MaxPlayers; k++ {
		if s := (v.Me + k) % MaxPlayers; st.HandLen[s] > 0 {
			return uint8(s)
		}
	}
	return uint8((v.Me + 1) % MaxPlayers)
}
