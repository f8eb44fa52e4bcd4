package rewind

import (
	"encoding/binary"
	"fmt"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

// MessageSpec describes one of a game's typed match messages (its type id
// and payload size): a game that registers its messages returns one per
// type from MatchMessages (Messenger), and the server relays only those.
type MessageSpec = game.MessageSpec

// Messenger is implemented by a game that registers its own typed match
// messages (see game.Messenger): MatchMessages returns MessageType.Spec
// of each.
type Messenger = game.Messenger

// ChatGame is the kind of a game's typed match message
// (ChatMessage.Kind); MessageType.Decode reads it.
const ChatGame = codec.ChatGame

// MessageType is a game's own typed match message: values of M, a struct
// of fixed-size fields (or a fixed-size value: what encoding/binary
// encodes with binary.Size), little-endian on the wire, under a type id
// of the game's numbering. They go like chat lines: reliable and in order
// with the sender's other match messages, relayed by the server to every
// player, never through Step. A game registers its types (Messenger) so
// that the server refuses any other type or size.
type MessageType[M any] struct {
	id   uint8
	size int
}

// NewMessageType returns the message type of M under type id id. It fails
// with ErrConfig when M has no fixed size (binary.Size) or is larger than
// game.MaxMessageSize (254 bytes) or empty.
func NewMessageType[M any](id uint8) (MessageType[M], error) {
	var zero M
	n := binary.Size(zero)
	if n < 1 || n > game.MaxMessageSize {
		return MessageType[M]{}, fmt.Errorf("rewind: message type %d of %T: size %d, want 1..%d fixed bytes: %w", id, zero, n, game.MaxMessageSize, ErrConfig)
	}
	return MessageType[M]{id: id, size: n}, nil
}

// Spec returns the type's id and payload size, for a game's
// MatchMessages.
func (t MessageType[M]) Spec() MessageSpec { return MessageSpec{ID: t.id, Size: t.size} }

// Decode returns the value of a received match message and true when m
// is a message of this type (kind ChatGame, this id, this size); the zero
// value and false otherwise. It never panics on what a peer sent.
func (t MessageType[M]) Decode(m ChatMessage) (M, bool) {
	var v M
	if m.Kind != ChatGame || m.Type != t.id || len(m.Text) != t.size {
		return v, false
	}
	if _, err := binary.Decode([]byte(m.Text), binary.LittleEndian, &v); err != nil {
		var zero M
		return zero, false
	}
	return v, true
}

// encode returns v's payload.
func (t MessageType[M]) encode(v M) ([]byte, error) {
	b, err := binary.Append(make([]byte, 0, t.size), binary.LittleEndian, v)
	if err != nil || len(b) != t.size {
		return nil, fmt.Errorf("rewind: message type %d: %v: %w", t.id, err, ErrConfig)
	}
	return b, nil
}

// SendMessage queues v, a message of type t, for the match: reliable and
// in order with this player's other match messages, relayed by the
// server to every player (this one too), who read it from Session.Chat
// with t.Decode; or refused with a reason (a ChatMessage of kind
// ChatRefused). It fails with a wrapped client.ErrChatFull when 64
// messages wait for the server's acknowledgement.
func SendMessage[I, M any](s *Session[I], t MessageType[M], v M) error {
	b, err := t.encode(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.SendGame(t.id, b)
}
