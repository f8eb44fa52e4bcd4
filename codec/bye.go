package codec

import "io"

// Bye ends a connection: a client leaving, or the server dropping a
// client. It is not acknowledged; senders repeat it a few times.
//
//	0      0xA<<4 (flags zero)
//	1      connection tag
//	2      base reason (ReasonNone, ReasonTimeout, ReasonShutdown, ReasonKicked, ...)
//	3      detail reason, optional (ReasonEnded, ReasonMigrate): absent when zero
//	4..    last tick, varint, optional (only after a detail): the match's
//	       last tick, with the goodbye of a match that ended (Server.End)
//	n      0x01, optional (only after the last tick): the operator ended
//	       the match (ReasonOperator); any other byte here is not read
//
// The detail byte came after the first version of the Bye: a receiver of
// before it reads the first three bytes and ignores the rest, so it sees
// the base reason (ReasonShutdown for both details). Goodbyes say why:
//
//	match ended on purpose            base ReasonShutdown, detail ReasonEnded
//	match ended by the operator       base ReasonShutdown, detail ReasonEnded, last tick, 0x01
//	server left, match over           base ReasonShutdown, no detail
//	server leaving, match goes on     base ReasonShutdown, detail ReasonMigrate
//	kicked                            base ReasonKicked, no detail
//
// The last tick came after the detail byte (version history: 1 the base
// reason, 2 the detail, 3 the last tick): a receiver of version 2 reads
// four bytes and ignores the rest. A server that ends a match on purpose
// (ReasonEnded) says which tick was its last, so that a client can tell
// whether it has every tick of the match. The operator's mark came after
// the last tick (version 4): a receiver of version 3 reads the goodbye of
// a match ended by the operator as ReasonEnded with its last tick.
type Bye struct {
	Tag    uint8
	Reason Reason
	// Detail, if not zero, is the finer reason (ReasonEnded or
	// ReasonMigrate); Reason is then ReasonShutdown.
	Detail Reason
	// HasLast says Last is sent: the match's last tick. It goes only
	// with a detail reason (Append leaves it out otherwise).
	HasLast bool
	Last    uint32
	// Operator says the operator ended the match (ReasonOperator). It
	// goes only after the last tick (Append leaves it out otherwise).
	Operator bool
}

// byeOperator is the byte after the last tick that marks a match ended
// by the operator.
const byeOperator = 0x01

// NewBye returns the Bye for reason r: a detail reason goes after its
// base (ByeBase), any other reason alone; ReasonOperator is ReasonEnded
// with the operator's mark (give it a last tick: the mark goes after it).
func NewBye(tag uint8, r Reason) Bye {
	if r == ReasonOperator {
		return Bye{Tag: tag, Reason: ReasonShutdown, Detail: ReasonEnded, Operator: true}
	}
	if r > maxReason {
		return Bye{Tag: tag, Reason: ByeBase(r), Detail: r}
	}
	return Bye{Tag: tag, Reason: r}
}

// ByeBase returns the base reason a detail reason is sent after (the one
// receivers of before the detail byte see): ReasonShutdown for
// ReasonEnded and ReasonMigrate, r itself for the others.
func ByeBase(r Reason) Reason {
	if r > maxReason {
		return ReasonShutdown
	}
	return r
}

// Why returns the finest reason the Bye gives: ReasonOperator for a
// match ended by the operator, else its detail if it has one, else its
// base reason.
func (m *Bye) Why() Reason {
	if m.Detail == ReasonEnded && m.HasLast && m.Operator {
		return ReasonOperator
	}
	if m.Detail != 0 {
		return m.Detail
	}
	return m.Reason
}

// Length returns the encoded length.
func (m *Bye) Length() int {
	if m.Detail != 0 && m.HasLast {
		n := shortHeaderLen + 2 + uvarintLen(uint64(m.Last))
		if m.Operator {
			n++
		}
		return n
	}
	if m.Detail != 0 {
		return shortHeaderLen + 2
	}
	return shortHeaderLen + 1
}

// Append appends the encoding to b.
func (m *Bye) Append(b []byte) []byte {
	b = append(b, byte(TypeBye)<<4, m.Tag, byte(m.Reason))
	if m.Detail != 0 {
		b = append(b, byte(m.Detail))
		if m.HasLast {
			b = appendUvarint(b, uint64(m.Last))
			if m.Operator {
				b = append(b, byeOperator)
			}
		}
	}
	return b
}

// ParseBye parses a Bye from the start of b. A fourth byte is the detail
// reason; a datagram of three bytes is a Bye without one. After the
// detail, a varint is the last tick.
func ParseBye(b []byte) (Bye, int, error) {
	var m Bye
	flags, tag, err := parseShortHeader(b, TypeBye)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("bye flags %#x", flags)
	}
	if len(b) < shortHeaderLen+1 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Tag, m.Reason = tag, Reason(b[2])
	if m.Reason > maxReason {
		return m, 0, errMalformedf("bye reason %d", m.Reason)
	}
	if len(b) == shortHeaderLen+1 {
		return m, shortHeaderLen + 1, nil
	}
	m.Detail = Reason(b[3])
	if m.Detail <= maxReason || m.Detail > maxDetail || m.Reason != ByeBase(m.Detail) {
		return m, 0, errMalformedf("bye detail %d after reason %d", m.Detail, m.Reason)
	}
	n := shortHeaderLen + 2
	if len(b) == n {
		return m, n, nil
	}
	last, err := readUvarint32(b, &n)
	if err != nil {
		return m, 0, err
	}
	m.HasLast, m.Last = true, last
	if n < len(b) && b[n] == byeOperator {
		m.Operator = true
		n++
	}
	return m, n, nil
}
