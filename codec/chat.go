package codec

import (
	"io"
	"time"

	"github.com/rewindnet/rewind/codec/reliable"
)

// ChatKind is the kind of a match message (Chat).
type ChatKind uint8

// The kinds of match messages.
const (
	// ChatText is a line of text chat.
	ChatText ChatKind = 1
	// ChatName sets the sender's player name.
	ChatName ChatKind = 2
	// ChatRefused (server to the sender only) says the sender's message
	// was refused; Text is the reason.
	ChatRefused ChatKind = 3
	// ChatReady says the sender is ready to start ("1") or not ("0").
	ChatReady ChatKind = 4
	// ChatStart (server to every player, From ChatServer) says the match
	// starts; Text is free (the host's words).
	ChatStart ChatKind = 5
	// ChatEnd (server to every player, From ChatServer) says the match
	// ended; Text is the results as the host writes them (plain text).
	ChatEnd ChatKind = 6
	// ChatGame is a game's own typed match message: Text is its type id
	// (one byte, the game's numbering) then its payload (bytes the game
	// encodes; not text). The server relays it like a chat line.
	ChatGame ChatKind = 7
)

// ChatServer is the From of the messages the server itself sends
// (ChatStart, ChatEnd): no player has this id.
const ChatServer = 255

// MaxChatText is the most bytes of a match message's text on the wire;
// the server refuses longer lines (server.Config.ChatMaxLen, smaller).
const MaxChatText = 255

// MaxChatMessages is the most match messages in one Chat datagram.
const MaxChatMessages = 16

// ChatMessage is one match message of a Chat datagram: its number in its
// sender's stream (each way, from 1), who it is from (the server fills
// it in; a client writes 0), its kind and text (bytes, UTF-8 checked by
// the server, never markup).
type ChatMessage struct {
	Seq  uint32
	From uint8
	Kind ChatKind
	Text []byte
}

// Chat carries match messages (names, text chat, refusals) either way,
// reliable and ordered per sender over a reliable.Stream: every
// unacknowledged message goes in every Chat until the peer's Ack covers
// it, and each Chat acknowledges the peer's messages.
//
//	0      0xD<<4 (flags zero)
//	1      connection tag
//	2..    Ack.Next, varint; Ack.Mask, varint (of the peer's messages)
//	       count, u8 (0..16)
//	       per message: Seq varint, From u8, Kind u8 (1..7),
//	       text length varint (0..255; 1.. for kind 7, whose first
//	       byte is the game's message type), text bytes
type Chat struct {
	Tag      uint8
	Ack      reliable.Ack
	Messages []ChatMessage
}

// Length returns the encoded length.
func (m *Chat) Length() int {
	n := shortHeaderLen + uvarintLen(uint64(m.Ack.Next)) + uvarintLen(m.Ack.Mask) + 1
	for _, c := range m.Messages {
		n += uvarintLen(uint64(c.Seq)) + 2 + uvarintLen(uint64(len(c.Text))) + len(c.Text)
	}
	return n
}

// Append appends the encoding to b.
func (m *Chat) Append(b []byte) []byte {
	b = append(b, byte(TypeChat)<<4, m.Tag)
	b = appendUvarint(b, uint64(m.Ack.Next))
	b = appendUvarint(b, m.Ack.Mask)
	b = append(b, byte(len(m.Messages)))
	for _, c := range m.Messages {
		b = appendUvarint(b, uint64(c.Seq))
		b = append(b, c.From, byte(c.Kind))
		b = appendUvarint(b, uint64(len(c.Text)))
		b = append(b, c.Text...)
	}
	return b
}

// ParseChat parses a Chat from the start of b. The texts alias b.
func ParseChat(b []byte) (Chat, int, error) {
	var m Chat
	flags, tag, err := parseShortHeader(b, TypeChat)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("chat flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	if m.Ack.Next, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.Ack.Mask, err = readUvarint(b, &p); err != nil {
		return m, 0, err
	}
	if p >= len(b) {
		return m, 0, io.ErrUnexpectedEOF
	}
	count := int(b[p])
	p++
	if count > MaxChatMessages {
		return m, 0, errMalformedf("chat: %d messages", count)
	}
	if count > 0 {
		m.Messages = make([]ChatMessage, count)
	}
	for i := range m.Messages {
		if err := readChatMessage(b, &p, &m.Messages[i]); err != nil {
			return m, 0, err
		}
	}
	return m, p, nil
}

func readChatMessage(b []byte, p *int, c *ChatMessage) error {
	var err error
	if c.Seq, err = readUvarint32(b, p); err != nil {
		return err
	}
	if len(b)-*p < 2 {
		return io.ErrUnexpectedEOF
	}
	c.From, c.Kind = b[*p], ChatKind(b[*p+1])
	*p += 2
	if c.Kind < ChatText || c.Kind > ChatGame {
		return errMalformedf("chat kind %d", c.Kind)
	}
	n, err := readUvarint(b, p)
	if err != nil {
		return err
	}
	if n > MaxChatText || (n == 0 && c.Kind == ChatGame) {
		return errMalformedf("chat text of %d bytes (kind %d)", n, c.Kind)
	}
	if uint64(len(b)-*p) < n {
		return io.ErrUnexpectedEOF
	}
	if n > 0 {
		c.Text = b[*p : *p+int(n)]
		*p += int(n)
	}
	return nil
}

// AppendChat appends to buf one Chat of stream st (whose messages are
// held as from, kind, text): its ack, and as many unacknowledged messages
// as fit a datagram, recorded as sent at now. Server and client both send
// their streams' Chats with it.
func AppendChat(buf []byte, tag uint8, st *reliable.Stream, now time.Time) []byte {
	m := Chat{Tag: tag, Ack: st.Ack()}
	size := m.Length()
	st.Unacked(now, func(seq uint32, e []byte) bool {
		c := ChatMessage{Seq: seq, From: e[0], Kind: ChatKind(e[1]), Text: e[2:]}
		n := 12 + len(c.Text)
		if len(m.Messages) == MaxChatMessages || size+n > MaxDatagram {
			return false
		}
		size += n
		m.Messages = append(m.Messages, c)
		return true
	})
	return m.Append(buf)
}
