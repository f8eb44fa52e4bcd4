package rewind_test

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind"
)

// Vote is a game's own match message: a player's vote for the next map.
type Vote struct {
	Map    uint8
	Weight int16
}

// voteType is Vote's message type, id 1 in the game's numbering.
var voteType, _ = rewind.NewMessageType[Vote](1)

// VotingCounter is the counting game with a registered message type:
// the server relays Votes and refuses any other game message.
type VotingCounter struct{ Counter }

// MatchMessages registers Vote (rewind.Messenger).
func (*VotingCounter) MatchMessages() []rewind.MessageSpec {
	return []rewind.MessageSpec{voteType.Spec()}
}

// ExampleMessageType sends a game's typed match message (a Vote) through
// the match: the server relays it to every player, reliably and in order
// with the sender's other match messages, and each reads it back with
// Decode. It never reaches the game's Step.
func ExampleMessageType() {
	s, err := rewind.Play[Input](&VotingCounter{}, rewind.Options{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 100 {
		now = now.Add(time.Millisecond)
		_ = s.Update(now)
	}
	if err := rewind.SendMessage(s, voteType, Vote{Map: 3, Weight: -2}); err != nil {
		panic(err)
	}
	for range 100 {
		now = now.Add(time.Millisecond)
		_ = s.Update(now)
	}
	for _, m := range s.Chat() {
		if v, ok := voteType.Decode(m); ok {
			fmt.Printf("player %d votes for map %d with weight %d\n", m.From, v.Map, v.Weight)
		}
	}
	// Output:
	// player 0 votes for map 3 with weight -2
}
