//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package world

// Worlds are raw little-endian memory on every supported target (amd64,
// arm64, wasm, ...): a big-endian machine would disagree on every hash, so
// building for one fails here, on purpose, with this identifier as the
// message.
var _ = world_does_not_support_big_endian_machines
