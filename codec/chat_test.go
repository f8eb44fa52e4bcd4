package codec

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/codec/reliable"
)

func TestChat(t *testing.T) {
	long := []byte(strings.Repeat("x", MaxChatText))
	for _, m := range []Chat{
		{Tag: 1},
		{Tag: 2, Ack: reliable.Ack{Next: 300, Mask: 1 << 40}, Messages: []ChatMessage{{Seq: 1, Kind: ChatName, Text: []byte("ann")}}},
		{Tag: 3, Messages: []ChatMessage{{Seq: 70000, From: 63, Kind: ChatText, Text: long}, {Seq: 70001, Kind: ChatRefused}, {Seq: 70003, From: ChatServer, Kind: ChatEnd, Text: []byte("winner=2")}, {Seq: 70002, Kind: ChatText, Text: []byte("é ✓")}}},
		{Tag: 4, Messages: []ChatMessage{{Seq: 9, From: 2, Kind: ChatGame, Text: []byte{7, 0, 0xff, 3}}, {Seq: 10, Kind: ChatGame, Text: []byte{1}}}},
	} {
		b := checkMessage(t, &m, ParseChat)
		b[0] |= 1
		mustFail(t, "flags", b, ParseChat, ErrMalformed)
	}
	bad := Chat{Messages: []ChatMessage{{Seq: 1, Kind: 8}}}
	mustFail(t, "kind", bad.Append(nil), ParseChat, ErrMalformed)
	untyped := Chat{Messages: []ChatMessage{{Seq: 1, Kind: ChatGame}}}
	mustFail(t, "game message without its type", untyped.Append(nil), ParseChat, ErrMalformed)
	over := Chat{Messages: []ChatMessage{{Seq: 1, Kind: ChatText, Text: append(long, 'y')}}}
	mustFail(t, "text too long", over.Append(nil), ParseChat, ErrMalformed)
	many := Chat{Messages: make([]ChatMessage, MaxChatMessages+1)}
	for i := range many.Messages {
		many.Messages[i] = ChatMessage{Seq: uint32(i + 1), Kind: ChatText}
	}
	mustFail(t, "too many", many.Append(nil), ParseChat, ErrMalformed)
	// The most a Chat holds fits a datagram.
	full := Chat{Ack: reliable.Ack{Next: 1 << 31, Mask: ^uint64(0)}, Messages: make([]ChatMessage, 4)}
	for i := range full.Messages {
		full.Messages[i] = ChatMessage{Seq: 1 << 31, Kind: ChatText, Text: long}
	}
	checkMessage(t, &full, ParseChat)
}

// TestChatGolden pins the bytes: tag 9, ack next 2, one text "hi" from
// player 3, number 5.
func TestChatGolden(t *testing.T) {
	m := Chat{Tag: 9, Ack: reliable.Ack{Next: 2}, Messages: []ChatMessage{{Seq: 5, From: 3, Kind: ChatText, Text: []byte("hi")}}}
	const want = "d0090200010503010268 69"
	if got := hex.EncodeToString(m.Append(nil)); got != strings.ReplaceAll(want, " ", "") {
		t.Fatalf("%s, want %s", got, want)
	}
}
