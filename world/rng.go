package world

import "math/bits"

// rngState is the 32-byte state of a xoshiro256** generator, stored in the
// world so it is snapshotted, hashed, restored and sent with everything
// else.
type rngState struct{ S [4]uint64 }

// RNG is a handle to a deterministic random number generator
// (xoshiro256**) whose state lives in the world. The same seed gives the
// same sequence on every machine; rolling the world back rolls the
// generator back. A never-seeded generator behaves as if seeded with 0.
// Methods do not allocate.
type RNG struct{ v Value[rngState] }

// AddRNG registers a random number generator named name, in the public
// scene or in the scene given: a generator whose draws must stay secret
// (a deck's shuffle) lives in a server-only scene (see Scene).
func AddRNG(s *Schema, name string, in ...Scene) RNG {
	return RNG{AddValue[rngState](s, name, in...)}
}

func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Seed resets the generator's state from seed.
func (r RNG) Seed(w *World, seed uint64) {
	st := r.v.Ptr(w)
	for i := range st.S {
		st.S[i] = splitmix64(&seed)
	}
}

// Uint64 returns 64 random bits.
func (r RNG) Uint64(w *World) uint64 {
	st := r.v.Ptr(w)
	s := &st.S
	if s[0]|s[1]|s[2]|s[3] == 0 {
		r.Seed(w, 0)
	}
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// Uint64N returns a uniform value in [0, n); it panics if n == 0.
func (r RNG) Uint64N(w *World, n uint64) uint64 {
	if n == 0 {
		panic("world: RNG.Uint64N with n == 0")
	}
	// Lemire's multiply-shift with rejection: unbiased.
	hi, lo := bits.Mul64(r.Uint64(w), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(w), n)
		}
	}
	return hi
}

// IntN returns a uniform value in [0, n); it panics if n <= 0.
func (r RNG) IntN(w *World, n int) int {
	if n <= 0 {
		panic("world: RNG.IntN with n <= 0")
	}
	return int(r.Uint64N(w, uint64(n)))
}

// Float64 returns a uniform value in [0, 1) (53 random bits; exact and
// identical on every machine).
func (r RNG) Float64(w *World) float64 {
	return float64(r.Uint64(w)>>11) * (1.0 / (1 << 53))
}

// Bool returns a random bool.
func (r RNG) Bool(w *World) bool { return r.Uint64(w)>>63 == 1 }

// Name returns the name the generator was registered under.
func (r RNG) Name() string { return r.v.Name() }

// SeedBytes resets the generator's state from 32 bytes (all 256 bits of
// the state: a secret seed from crypto/rand keeps its full strength, where
// Seed's 64 bits could be searched), each 8 bytes mixed with splitmix64.
func (r RNG) SeedBytes(w *World, seed [32]byte) {
	st := r.v.Ptr(w)
	for i := range st.S {
		x := uint64(seed[8*i]) | uint64(seed[8*i+1])<<8 | uint64(seed[8*i+2])<<16 | uint64(seed[8*i+3])<<24 |
			uint64(seed[8*i+4])<<32 | uint64(seed[8*i+5])<<40 | uint64(seed[8*i+6])<<48 | uint64(seed[8*i+7])<<56
		x += uint64(i) // distinct lanes even for equal words
		st.S[i] = splitmix64(&x)
	}
}

// State returns the generator's four state words (for tests and tools:
// a generator's state is as secret as what it will draw).
func (r RNG) State(w *World) [4]uint64 { return r.v.Ptr(w).S }
