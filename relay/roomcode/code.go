package roomcode

import (
	"fmt"
	"io"
	"strings"
)

// Alphabet is the alphabet of room codes: no 0/O, 1/I. Its 32 characters
// take 5 bits each, so a code drawn from uniform random bytes is uniform.
const Alphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

// Len is the length of a room code (the relay's default; what a Hello
// carries, codec.RoomCodeSize).
const Len = 6

// DefaultLen is the length of the codes a relay draws by default
// (relay.RoomConfig.CodeLength, `relay --code-length`): 7, since 6 did
// not keep guessing at fleet scale below one room a day against many
// addresses (docs/security.md, "Code guessing at fleet scale").
const DefaultLen = 7

// MaxLen is the longest room code a relay hands out or takes
// (RoomConfig.CodeLength of package relay).
const MaxLen = 12

// Valid reports whether code is Len characters of Alphabet.
func Valid(code string) bool {
	return len(code) == Len && inAlphabet(code)
}

// ValidLen reports whether code is Len to MaxLen characters of Alphabet.
func ValidLen(code string) bool {
	return len(code) >= Len && len(code) <= MaxLen && inAlphabet(code)
}

func inAlphabet(code string) bool {
	for i := 0; i < len(code); i++ {
		if strings.IndexByte(Alphabet, code[i]) < 0 {
			return false
		}
	}
	return true
}

// New draws a code of n characters (clamped to Len..MaxLen) of Alphabet
// from rnd, every code equally likely.
func New(rnd io.Reader, n int) (string, error) {
	var buf [MaxLen]byte
	b := buf[:min(max(n, Len), MaxLen)]
	if _, err := io.ReadFull(rnd, b); err != nil {
		return "", fmt.Errorf("roomcode: drawing a room code: %w", err)
	}
	for i := range b {
		b[i] = Alphabet[b[i]&31]
	}
	return string(b), nil
}
