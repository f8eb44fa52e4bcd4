package rewind

import (
	"fmt"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/server"
)

// ChatMessage is a match message the server relayed (a chat line, a
// player's name, or the server's refusal of one of ours, with the
// reason): see client.ChatMessage. Its Text is plain text, never markup.
type ChatMessage = client.ChatMessage

// Say queues a chat line for the match (reliable, in order with this
// player's other match messages, relayed by the server to every player
// or refused with a reason). It fails with a wrapped client.ErrChatFull
// for a line longer than 255 bytes or when 64 messages wait for the
// server's acknowledgement. A session that moves to a new host (host
// migration) starts a new stream: lines not acknowledged by the old host
// are lost.
func (s *Session[I]) Say(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Say(text)
}

// SetName queues this player's name (1 to 32 bytes), sent like a chat
// line: every player learns it, later joiners too.
func (s *Session[I]) SetName(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.SetName(name)
}

// Chat returns the match messages received since the last call, in the
// server's order, and forgets them.
func (s *Session[I]) Chat() []ChatMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Chat()
}

// Name returns player p's name, "" if it has none (yet).
func (s *Session[I]) Name(p PlayerID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Name(p)
}

// ChatKind is the kind of a match message (ChatMessage.Kind): ChatText,
// ChatName, ChatRefused, ChatReady, ChatStart, ChatEnd, ChatGame.
type ChatKind = codec.ChatKind

// The kinds of match messages (ChatMessage.Kind).
const (
	// ChatText is a chat line.
	ChatText = codec.ChatText
	// ChatName is a player's new name.
	ChatName = codec.ChatName
	// ChatRefused is the server's refusal of one of our messages; Text
	// is the reason.
	ChatRefused = codec.ChatRefused
	// ChatReady is a player's readiness, Text "1" or "0".
	ChatReady = codec.ChatReady
	// ChatStart and ChatEnd are the host's start and end of the match
	// (Host.Announce); an end's Text is the results.
	ChatStart = codec.ChatStart
	ChatEnd   = codec.ChatEnd
)

// SetReady queues this player's readiness to start, relayed to every
// player like a chat line.
func (s *Session[I]) SetReady(ready bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.SetReady(ready)
}

// ChatServer is the From of the messages the host sends itself (start,
// end, its own game messages): no player has this id.
const ChatServer = codec.ChatServer

// Announce sends every player of the current match a message of the
// host's own, from ChatServer, reliable and in order with the relayed
// ones: ChatStart (Text free, the host's words) or ChatEnd (Text the
// results, plain text). The host decides when: the match does not start
// or end by itself on it. It fails with a wrapped server.ErrConfig for
// another kind or a text over ServerConfig.ChatMaxLen bytes or not UTF-8.
func (h *Host[I]) Announce(kind ChatKind, text string) error {
	if kind == ChatGame {
		return fmt.Errorf("rewind: announce a game message with AnnounceMessage: %w", server.ErrConfig)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m.Server.Announce(kind, text)
}

// AnnounceMessage sends every player of h's current match v, a game
// message of type t, from ChatServer (reliable, in order with the other
// match messages; players read it with t.Decode).
func AnnounceMessage[I, M any](h *Host[I], t MessageType[M], v M) error {
	b, err := t.encode(v)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m.Server.Announce(ChatGame, string(append([]byte{t.id}, b...)))
}

// Ready returns the players of the current match who said they are ready
// (Session.SetReady): bit p for player p.
func (h *Host[I]) Ready() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m.Server.Ready()
}

// Name returns player p's name in the current match ("" if it has none).
func (h *Host[I]) Name(p PlayerID) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m.Server.Name(int(p))
}
