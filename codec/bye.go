package codec

import "io"

// Bye ends a connection: a client leaving, or the server dropping a
// client. It is not acknowledged; senders repeat it a few times.
//
//	0      0xA<<4 (flags zero)
//	1      connection tag
//	2      base reason (ReasonNone, ReasonTimeout, ReasonShutdown, ReasonKicked, ...)
//	3      detail reason, optional (ReasonEnded, ReasonMigrate): absent when zero
//
// The detail byte came after the first version of the Bye: a receiver of
// before it reads the first three bytes and ignores the rest, so it sees
// the base reason (ReasonShutdown for both details). Goodbyes say why:
//
//	match ended on purpose            base ReasonShutdown, detail ReasonEnded
//	server left, match over           base ReasonShutdown, no detail
//	server leaving, match goes on     base ReasonShutdown, detail ReasonMigrate
//	kicked                            base ReasonKicked, no detail
type Bye struct {
	Tag    uint8
	Reason Reason
	// Detail, if not zero, is the finer reason (ReasonEnded or
	// ReasonMigrate); Reason is then ReasonShutdown.
	Detail Reason
}

// NewBye returns the Bye for reason r: a detail reason goes after its
// base (ByeBase), any other reason alone.
func NewBye(tag uint8, r Reason) Bye {
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

// Why returns the finest reason the Bye gives: its detail if it has one,
// else its base reason.
func (m *Bye) Why() Reason {
	if m.Detail != 0 {
		return m.Detail
	}
	return m.Reason
}

// Length returns the encoded length.
func (m *Bye) Length() int {
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
	}
	return b
}

// ParseBye parses a Bye from the start of b. A fourth byte is the detail
// reason; a datagram of three bytes is a Bye without one.
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
	return m, shortHeaderLen + 2, nil
}
