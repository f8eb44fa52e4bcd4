package roomproto

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// Match servers authenticate to a relay that has a server token (a
// secret both read from a file: `rewind relay --server-token FILE`,
// `rewind serve --server-token FILE`) without sending it: the relay
// hands every WebSocket a fresh random nonce in the upgrade response's
// NonceHeader, and a match server's "serve" carries, in "auth",
// ServerProof(token, nonce). An observer of a ws:// connection learns a
// proof good for that one connection's nonce only.

// NonceHeader is the HTTP response header of the WebSocket upgrade in
// which the relay hands the connection its nonce (32 hex digits).
const NonceHeader = "Rewind-Relay-Nonce"

// MaxAuthLen bounds the "auth" of a serve (a proof is 64 hex digits).
const MaxAuthLen = 64

// ServerProof is a match server's proof that it holds token, for the
// connection the relay gave nonce: HMAC-SHA256 keyed by token over a
// fixed label and the nonce, as hex.
func ServerProof(token []byte, nonce string) string {
	mac := hmac.New(sha256.New, token)
	mac.Write([]byte("rewind serve v2\x00"))
	mac.Write([]byte(nonce))
	return hex.EncodeToString(mac.Sum(nil))
}

// CheckServerProof reports whether proof is ServerProof(token, nonce),
// in constant time.
func CheckServerProof(token []byte, nonce, proof string) bool {
	want := ServerProof(token, nonce)
	return nonce != "" && hmac.Equal([]byte(want), []byte(proof))
}
