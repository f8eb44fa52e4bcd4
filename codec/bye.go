package codec

import "io"

// Bye ends a connection: a client leaving, or the server dropping a
// client. It is not acknowledged; senders repeat it a few times.
//
//	0      0xA<<4 (flags zero)
//	1      connection tag
//	2      reason (ReasonNone, ReasonTimeout, ReasonShutdown, ReasonKicked, ...)
type Bye struct {
	Tag    uint8
	Reason Reason
}

// Length returns the encoded length.
func (m *Bye) Length() int { return shortHeaderLen + 1 }

// Append appends the encoding to b.
func (m *Bye) Append(b []byte) []byte {
	return append(b, byte(TypeBye)<<4, m.Tag, byte(m.Reason))
}

// ParseBye parses a Bye from the start of b.
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
	return m, shortHeaderLen + 1, nil
}
