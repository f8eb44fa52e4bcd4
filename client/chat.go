package client

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
)

// ChatMessage is a match message the server relayed: a chat line, a
// name or a ready ("1"/"0") from player From; (Refused) the server's
// reason for refusing one of ours; the server's own start or end of the
// match (From codec.ChatServer; an end's Text is the results); or a
// game's typed message (codec.ChatGame). Text is the sender's bytes,
// valid UTF-8 without control characters (the server checked): plain
// text, never markup; for a game message it is the payload, the game's
// bytes, and Type its type id.
type ChatMessage struct {
	From game.PlayerID
	// Name is From's name when the message came (after a ChatName, the
	// new one).
	Name string
	Kind codec.ChatKind
	Text string
	// Type is a game message's type id (codec.ChatGame; 0 otherwise).
	Type uint8
}

// chatState is the client's match messages: the stream each way, the
// messages received and not yet taken, and the players' names.
type chatState struct {
	stream *reliable.Stream
	in     []ChatMessage
	names  map[game.PlayerID]string
	sentAt time.Time
}

func (c *Client[I]) chatStream() *reliable.Stream {
	if c.chat.stream == nil {
		c.chat.stream = reliable.NewStream(reliable.StreamWindow)
		c.chat.names = map[game.PlayerID]string{}
	}
	return c.chat.stream
}

// Say queues a chat line for the match, sent reliably and in order with
// the client's other match messages. The server relays it to every
// player (us too) or refuses it with a reason (a ChatMessage of kind
// codec.ChatRefused): too long, invalid UTF-8, control characters, or
// over the rate limit.
func (c *Client[I]) Say(text string) error { return c.pushChat(codec.ChatText, text) }

// SetName queues our player name (1 to 32 bytes of UTF-8), sent like a
// chat line; every player learns it, and players who join later too.
func (c *Client[I]) SetName(name string) error { return c.pushChat(codec.ChatName, name) }

// SetReady queues our readiness to start (or not), relayed to every
// player like a chat line; the server's Ready holds it.
func (c *Client[I]) SetReady(ready bool) error {
	v := "0"
	if ready {
		v = "1"
	}
	return c.pushChat(codec.ChatReady, v)
}

// SendGame queues a typed game message (type id typ, the game's own
// numbering, and its payload, 1..254 bytes), sent reliably and in order
// with the client's other match messages. The server relays it to every
// player (us too) or refuses it with a reason: a type the game did not
// register or a wrong size (game.Messenger), or over the rate limit.
func (c *Client[I]) SendGame(typ uint8, payload []byte) error {
	if len(payload) < 1 || len(payload) > game.MaxMessageSize {
		return fmt.Errorf("client: game message of %d bytes: %w", len(payload), ErrChatFull)
	}
	return c.pushChat(codec.ChatGame, string(append([]byte{typ}, payload...)))
}

func (c *Client[I]) pushChat(kind codec.ChatKind, text string) error {
	if len(text) > codec.MaxChatText || !c.chatStream().Push(append([]byte{0, byte(kind)}, text...)) {
		return fmt.Errorf("client: %d bytes: %w", len(text), ErrChatFull)
	}
	return nil
}

// Chat returns the match messages received since the last call, in the
// server's order (each sender's in the order sent), and forgets them.
func (c *Client[I]) Chat() []ChatMessage {
	in := c.chat.in
	c.chat.in = nil
	return in
}

// Name returns player p's name, "" if it has none (yet).
func (c *Client[I]) Name(p game.PlayerID) string { return c.chat.names[p] }

// onChat takes the server's Chat: the ack of our messages and its own.
func (c *Client[I]) onChat(now time.Time, b []byte) error {
	m, _, err := codec.ParseChat(b)
	if err != nil {
		return err
	}
	st := c.chatStream()
	st.OnAck(m.Ack, now)
	for _, msg := range m.Messages {
		st.Receive(msg.Seq, append([]byte{msg.From, byte(msg.Kind)}, msg.Text...), c.takeChat)
	}
	return nil
}

// takeChat keeps one relayed message (from, kind, text).
func (c *Client[I]) takeChat(e []byte) {
	from, kind, text := game.PlayerID(e[0]), codec.ChatKind(e[1]), string(e[2:])
	if kind == codec.ChatName {
		c.chat.names[from] = text
	}
	m := ChatMessage{From: from, Name: c.chat.names[from], Kind: kind, Text: text}
	if kind == codec.ChatGame && len(text) > 0 { // the codec refuses an empty one
		m.Type, m.Text = text[0], text[1:]
	}
	if len(c.chat.in) < maxChatKept {
		c.chat.in = append(c.chat.in, m)
	} else {
		c.st.ChatDropped++
	}
	c.st.ChatIn++
}

// maxChatKept is how many received match messages wait for Chat at most.
const maxChatKept = 4096

// sendChat sends a Chat when messages wait for the server's ack (once a
// tick at most) or we owe it an ack.
func (c *Client[I]) sendChat(now time.Time) error {
	st := c.chat.stream
	if st == nil || (st.Queued() == 0 && !st.AckOwed()) {
		return nil
	}
	if !st.AckOwed() && now.Sub(c.chat.sentAt) < c.dt {
		return nil
	}
	c.chat.sentAt = now
	return c.send(codec.AppendChat(c.sbuf[:0], c.tag, st, now))
}
