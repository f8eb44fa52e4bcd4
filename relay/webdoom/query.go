package webdoom

import "strings"

// webDoomQueryValue returns the first value of key in a raw URL query as
// URLSearchParams.get does: pairs split on '&', '+' is a space, and a
// percent sign that does not start a valid escape is kept as it is.
func webDoomQueryValue(rawQuery, key string) (string, bool) {
	for pair := range strings.SplitSeq(rawQuery, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if wdUnescape(k) == key {
			return wdUnescape(v), true
		}
	}
	return "", false
}

func wdUnescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && wdIsHex(s[i+1]) && wdIsHex(s[i+2]):
			b = append(b, wdUnhex(s[i+1])<<4|wdUnhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func wdIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func wdUnhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
