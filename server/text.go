package server

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxCombining is the most combining marks (Unicode Mn, Me) a name or a
// chat line may stack on one character: enough for every script's
// accents (Vietnamese stacks two), far too few for the "zalgo" text that
// paints over other players' lines.
const MaxCombining = 4

// reservedNames are the names a player may not take, compared
// case-insensitively after NFC: they would pass for the server, the
// host or the engine speaking (issue 30 item 12).
var reservedNames = []string{"server", "host", "system", "admin", "rewind", "relay", "everyone", "all", "spectator"}

// cleanText normalizes a name's or a chat line's UTF-8 text to NFC and
// returns it, or why it is refused: control characters, format
// characters (Unicode Cf: the bidi controls U+202A-U+202E, U+2066-U+2069,
// U+200E, U+200F, U+061C and the zero-width U+200B-U+200D, U+2060,
// U+FEFF among them, which reorder or hide what the reader sees), more
// than MaxCombining combining marks on one character, and for a name:
// one that is only spaces, or one of the reserved names. text must be
// valid UTF-8.
func cleanText(text []byte, name bool) ([]byte, string) {
	if !norm.NFC.IsNormal(text) {
		text = norm.NFC.Bytes(text)
	}
	marks := 0
	for _, r := range string(text) {
		switch {
		case unicode.IsControl(r) || r == '\uFFFD':
			return nil, "control characters"
		case unicode.Is(unicode.Cf, r):
			return nil, "bidi or invisible characters"
		case unicode.In(r, unicode.Mn, unicode.Me):
			if marks++; marks > MaxCombining {
				return nil, "too many combining marks"
			}
		default:
			marks = 0
		}
	}
	if !name {
		return text, ""
	}
	trimmed := strings.TrimFunc(string(text), func(r rune) bool { return unicode.IsSpace(r) || unicode.In(r, unicode.Mn, unicode.Me) })
	if trimmed == "" {
		return nil, "name is blank"
	}
	for _, n := range reservedNames {
		if strings.EqualFold(trimmed, n) {
			return nil, "name reserved"
		}
	}
	return text, ""
}
