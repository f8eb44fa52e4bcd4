package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// MinTokenLen is the shortest admin token LoadToken accepts.
const MinTokenLen = 16

// LoadToken reads the admin token from the file at path: its content with
// surrounding white space removed, at least MinTokenLen bytes. It fails
// with an error wrapping ErrToken.
func LoadToken(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrToken, err)
	}
	t := strings.TrimSpace(string(b))
	if len(t) < MinTokenLen {
		return nil, fmt.Errorf("%w: %s holds %d characters, want %d or more", ErrToken, path, len(t), MinTokenLen)
	}
	return []byte(t), nil
}

// Authorized reports whether r carries "Authorization: Bearer TOKEN" with
// token, compared in constant time (of the SHA-256 of both, so neither the
// content nor the length leaks). A nil token authorizes nothing.
func Authorized(r *http.Request, token []byte) bool {
	if token == nil {
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	a, b := sha256.Sum256([]byte(strings.TrimSpace(got))), sha256.Sum256(token)
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
