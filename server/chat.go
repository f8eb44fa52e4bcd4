package server

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
)

// chatQueue is how many match messages the server queues for one player
// unacknowledged; past it, messages for that player are dropped (counted).
const chatQueue = 1024

// MaxNameLen is the most bytes of a player name.
const MaxNameLen = 32

// chatState is a player's match messages: the stream each way, its name,
// and its rate limit's tokens.
type chatState struct {
	stream *reliable.Stream
	name   string
	ready  bool
	tokens float64
	at     time.Time // when tokens were last refilled
	// The rate limit of typed game messages, apart from chat lines.
	msgTokens float64
	msgAt     time.Time
}

// onChat takes a player's Chat: the ack of what we sent it, and its
// messages, handled in order, each once.
func (s *Server[I]) onChat(now time.Time, p *player, b []byte) {
	m, _, err := codec.ParseChat(b)
	if err != nil {
		s.stats.BadDatagrams++
		return
	}
	st := s.chatOf(p)
	st.stream.OnAck(m.Ack, now)
	for _, c := range m.Messages {
		st.stream.Receive(c.Seq, append([]byte{byte(c.Kind)}, c.Text...), func(msg []byte) {
			s.takeChat(now, p, codec.ChatKind(msg[0]), msg[1:])
		})
	}
}

// chatOf returns the player's chat state, making it (with the names of
// the players named so far and the chat backlog queued for it) on first
// use.
func (s *Server[I]) chatOf(p *player) *chatState {
	if p.chat.stream == nil {
		p.chat.stream = reliable.NewStream(chatQueue)
		p.chat.tokens = float64(s.cfg.ChatBurst)
		p.chat.msgTokens = float64(s.cfg.MessageBurst)
		for _, q := range s.players {
			if q != nil && q != p && q.chat.name != "" {
				p.chat.stream.Push(chatEntry(uint8(q.id), codec.ChatName, []byte(q.chat.name)))
			}
			if q != nil && q != p && q.chat.ready {
				p.chat.stream.Push(chatEntry(uint8(q.id), codec.ChatReady, []byte("1")))
			}
		}
		for _, e := range s.chatBacklog {
			p.chat.stream.Push(e)
		}
	}
	return &p.chat
}

// logChat keeps a relayed chat line, announcement or game message in the
// backlog newcomers receive first (Config.ChatBacklog, the latest ones).
func (s *Server[I]) logChat(e []byte) {
	if s.cfg.ChatBacklog <= 0 {
		return
	}
	if len(s.chatBacklog) == s.cfg.ChatBacklog {
		s.chatBacklog = append(s.chatBacklog[:0], s.chatBacklog[1:]...)
	}
	s.chatBacklog = append(s.chatBacklog, e)
}

// chatEntry is a message as a stream holds it: from, kind, text.
func chatEntry(from uint8, kind codec.ChatKind, text []byte) []byte {
	return append([]byte{from, byte(kind)}, text...)
}

// takeChat checks a player's message and relays it to every player (the
// sender too, so that it sees the match's order), or tells the sender
// why it was refused.
func (s *Server[I]) takeChat(now time.Time, p *player, kind codec.ChatKind, text []byte) {
	st := s.chatOf(p)
	text, reason := s.checkChat(now, st, kind, text)
	if reason != "" {
		s.stats.ChatRefused++
		st.stream.Push(chatEntry(uint8(p.id), codec.ChatRefused, []byte(reason)))
		return
	}
	switch kind {
	case codec.ChatName:
		st.name = string(text)
	case codec.ChatReady:
		st.ready = text[0] == '1'
	case codec.ChatGame:
		s.stats.GameMessages++
	default:
		s.stats.ChatLines++
	}
	e := chatEntry(uint8(p.id), kind, text)
	for _, q := range s.players {
		if q != nil && !q.leaving {
			if !s.chatOf(q).stream.Push(e) {
				s.stats.ChatDropped++ // a player that acknowledges nothing
			}
		}
	}
	if kind == codec.ChatText || kind == codec.ChatGame {
		s.logChat(e) // after the relay: a stream made above has it once
	}
}

// checkChat returns the message as it is relayed (a name or a line in
// NFC: cleanText) and why it is refused ("" when it is not): a refusal is
// the server's word to the sender, and the sender stays.
func (s *Server[I]) checkChat(now time.Time, st *chatState, kind codec.ChatKind, text []byte) ([]byte, string) {
	if kind == codec.ChatGame {
		return text, s.checkMessage(now, st, text)
	}
	switch {
	case kind != codec.ChatText && kind != codec.ChatName && kind != codec.ChatReady:
		return nil, "not a message a player sends"
	case kind == codec.ChatReady && string(text) != "0" && string(text) != "1":
		return nil, "ready is 1 or 0"
	case !utf8.Valid(text):
		return nil, "invalid UTF-8"
	}
	text, reason := cleanText(text, kind == codec.ChatName)
	switch {
	case reason != "":
		return nil, reason
	case kind == codec.ChatName && (len(text) == 0 || len(text) > MaxNameLen):
		return nil, "name empty or too long"
	case len(text) > s.cfg.ChatMaxLen:
		return nil, "too long"
	}
	if kind == codec.ChatText {
		st.tokens = min(st.tokens+now.Sub(st.at).Seconds()*s.cfg.ChatRate, float64(s.cfg.ChatBurst))
		st.at = now
		if st.tokens < 1 {
			return nil, "too many lines: slow down"
		}
		st.tokens--
	}
	return text, ""
}

// checkMessage returns why a typed game message (its type id, then its
// payload) is refused, "" when it is not: a type the game did not
// register (game.Messenger), a payload not of its type's size, or over
// the player's MessageRate.
func (s *Server[I]) checkMessage(now time.Time, st *chatState, text []byte) string {
	if s.msgSizes != nil && s.msgSizes[text[0]] != len(text)-1 {
		if s.msgSizes[text[0]] == 0 {
			return fmt.Sprintf("no game message of type %d", text[0])
		}
		return fmt.Sprintf("game message of type %d: %d bytes, want %d", text[0], len(text)-1, s.msgSizes[text[0]])
	}
	st.msgTokens = min(st.msgTokens+now.Sub(st.msgAt).Seconds()*s.cfg.MessageRate, float64(s.cfg.MessageBurst))
	st.msgAt = now
	if st.msgTokens < 1 {
		return "too many game messages: slow down"
	}
	st.msgTokens--
	return ""
}

// initMessages takes the game's typed match messages (game.Messenger),
// checking them.
func (s *Server[I]) initMessages() error {
	m, ok := game.As[game.Messenger](s.g)
	if !ok {
		return nil
	}
	s.msgSizes = new([256]int)
	for _, sp := range m.MatchMessages() {
		if sp.Size < 1 || sp.Size > game.MaxMessageSize || s.msgSizes[sp.ID] != 0 {
			return fmt.Errorf("server: game message type %d of %d bytes (1..%d, each type once): %w", sp.ID, sp.Size, game.MaxMessageSize, ErrConfig)
		}
		s.msgSizes[sp.ID] = sp.Size
	}
	return nil
}

// sendChats sends every player whose stream has messages unacknowledged,
// or owes an ack, a Chat.
func (s *Server[I]) sendChats(now time.Time) error {
	for _, p := range s.players {
		if p == nil || p.addr == "" || !p.welcomed {
			continue
		}
		st := s.chatOf(p).stream // a newcomer's gets the names given so far
		if st.Queued() == 0 && !st.AckOwed() {
			continue
		}
		if err := s.send(p.addr, codec.AppendChat(s.wire.sbuf[:0], p.tag, st, now)); err != nil {
			return err
		}
	}
	return nil
}

// Announce sends every player in the match a message of the server's own
// (From codec.ChatServer): codec.ChatStart or codec.ChatEnd (Text: the
// results, plain text), or a typed game message (codec.ChatGame: Text is
// its type id then its payload, checked as a player's is but for the rate),
// reliable and in order with the relayed ones. It fails with ErrConfig
// for another kind, a text over ChatMaxLen bytes or not valid UTF-8, or a
// game message the game's types refuse.
func (s *Server[I]) Announce(kind codec.ChatKind, text string) error {
	switch {
	case kind == codec.ChatGame:
		if len(text) < 1 || len(text) > codec.MaxChatText ||
			(s.msgSizes != nil && s.msgSizes[text[0]] != len(text)-1) {
			return fmt.Errorf("server: announce a game message of %d bytes: %w", len(text), ErrConfig)
		}
	case (kind != codec.ChatStart && kind != codec.ChatEnd) || len(text) > s.cfg.ChatMaxLen || !utf8.ValidString(text):
		return fmt.Errorf("server: announce %d of %d bytes: %w", kind, len(text), ErrConfig)
	}
	e := chatEntry(codec.ChatServer, kind, []byte(text))
	for _, q := range s.players {
		if q != nil && !q.leaving && !s.chatOf(q).stream.Push(e) {
			s.stats.ChatDropped++
		}
	}
	s.logChat(e)
	return nil
}

// Ready returns the players who said they are ready (bit p for player p).
func (s *Server[I]) Ready() uint64 {
	var r uint64
	for id, p := range s.players {
		if p != nil && !p.leaving && p.chat.ready {
			r |= 1 << id
		}
	}
	return r
}

// Name returns player id's name ("" if it has none, or no such player).
func (s *Server[I]) Name(id int) string {
	if id < 0 || id >= len(s.players) || s.players[id] == nil {
		return ""
	}
	return s.players[id].chat.name
}
