// Package udp is rewind's direct UDP transport: Listen opens a Server (one
// socket, many peers) and Dial a Client (one server); both are
// transport.Conns.
//
// Datagrams travel with a small framing of their own: connection ids, a
// stateless retry-token handshake that keeps spoofed source addresses from
// opening sessions or drawing more bytes than they sent, then a Noise
// handshake (Noise_NX_25519_ChaChaPoly_SHA256) that authenticates the
// server's long-term key (Config.StaticKey; clients may pin it with
// Config.ServerKey), after which every datagram is sealed with
// ChaCha20-Poly1305 and taken once; and sessions that end on bye or after
// an idle timeout. wire.go has the frame layout, noise.go the handshake,
// seal.go the sealed frames; docs/transport.md says what it protects
// against and what it does not.
//
// A Server is also a transport.Batcher (sendmmsg where the platform has
// it), a transport.Handoff (its reader hands datagrams to a handler) and
// a transport.Prover (the caps on unproven sessions). Its reader takes
// many datagrams a system call (recvmmsg) on Linux; the _other.go files
// are the plain reads and writes of other platforms, js/wasm included.
package udp
