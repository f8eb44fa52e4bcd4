package fixed

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The cross-platform proof: every function of the package over many
// thousands of inputs (edge cases and a seeded random sweep), each
// function's results hashed with SHA-256 and compared with the hashes
// kept in testdata/golden.txt. CI runs it natively with GOAMD64=v1 and
// v3, as arm64 under qemu and as js/wasm under Node (.ci/run); any bit of
// any result that differs on a platform fails it there, naming the
// function. REWIND_WRITE_GOLDEN=1 writes the file again.

const goldenFile = "testdata/golden.txt"

// edges are the inputs every function meets: zero, ±one raw step, the
// range's ends and their neighbours, integers and angles near ±π, ±π/2
// and ±2π, tiny and huge values, and a world's sizes.
func edges() []Num {
	base := []Num{0, Epsilon, 2, 3, 255, 256, 257, Half - 1, Half, Half + 1, One - 1, One, One + 1,
		FromInt(2), FromInt(3), FromInt(10), FromInt(1000), FromInt(100_000), FromInt(1 << 23),
		FromInt(1 << 24), 1 << 31, 1 << 32, 1<<32 + 1, FromInt(1<<31 - 1), FromInt(1 << 40),
		FromInt(1 << 46), FromInt(1<<47 - 1), Max, Max - 1, Max - One, Max / 2, Max/2 + 1,
		Pi, Pi - 1, Pi + 1, HalfPi, HalfPi - 1, HalfPi + 1, TwoPi, TwoPi - 1, TwoPi + 1,
		Pi / 4, 3 * Pi / 4, FromInt(32), FromInt(33), FromInt(-12), FromInt(11), E,
		expHi - 1, expHi, expLo, expLo + 1}
	out := []Num{Min, Min + 1, Min + One}
	for _, b := range base {
		out = append(out, b)
		if b != 0 {
			out = append(out, -b)
		}
	}
	return out
}

// unaryInputs returns the edges, steps around ±π, ±π/2 and 0, and a
// seeded random sweep over every scale and over a few turns.
func unaryInputs() []Num {
	xs := edges()
	for _, c := range []Num{0, Pi, -Pi, HalfPi, -HalfPi, TwoPi} {
		for d := Num(-300); d <= 300; d++ {
			xs = append(xs, c+d)
		}
	}
	rng := splitmix(42)
	for range 20000 {
		xs = append(xs, rng.num(), rng.numIn(FromInt(20)))
	}
	return xs
}

// pairs returns every pair of edges and a seeded random sweep of pairs.
func pairs() [][2]Num {
	e := edges()
	var ps [][2]Num
	for _, a := range e {
		for _, b := range e {
			ps = append(ps, [2]Num{a, b})
		}
	}
	rng := splitmix(43)
	for range 20000 {
		ps = append(ps, [2]Num{rng.num(), rng.num()}, [2]Num{rng.numIn(FromInt(200_000)), rng.numIn(FromInt(200_000))})
	}
	return ps
}

// hashes returns "name sha256-hex count" for each function over the
// inputs, in a fixed order.
func hashes() []string {
	xs, ps := unaryInputs(), pairs()
	var lines []string
	sum := func(name string, n int, f func(h hash.Hash)) {
		h := sha256.New()
		f(h)
		lines = append(lines, fmt.Sprintf("%s %x %d", name, h.Sum(nil), n))
	}
	put := func(h hash.Hash, vs ...Num) {
		var b [8]byte
		for _, v := range vs {
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			h.Write(b[:])
		}
	}
	unary := []struct {
		name string
		f    func(Num) Num
	}{
		{"Sqrt", Sqrt}, {"Sin", Sin}, {"Cos", Cos}, {"Exp", Exp}, {"Log", Log},
		{"Neg", Num.Neg}, {"Abs", Num.Abs}, {"Floor", Num.Floor}, {"Ceil", Num.Ceil},
		{"Round", Num.Round}, {"FromInt", func(a Num) Num { return FromInt(int64(a)) }},
	}
	for _, u := range unary {
		sum(u.name, len(xs), func(h hash.Hash) {
			for _, x := range xs {
				put(h, u.f(x))
			}
		})
	}
	sum("FromAngle", len(xs), func(h hash.Hash) {
		for _, x := range xs {
			v := FromAngle(x)
			put(h, v.X, v.Y)
		}
	})
	binary := []struct {
		name string
		f    func(a, b Num) Num
	}{
		{"Add", Num.Add}, {"Sub", Num.Sub}, {"Mul", Num.Mul}, {"Div", Num.Div}, {"Atan2", Atan2},
		{"MulInt", func(a, b Num) Num { return a.MulInt(int64(b) >> 40) }},
		{"FromFrac", func(a, b Num) Num { return FromFrac(a.Int(), b.Int()) }},
		{"Length", func(a, b Num) Num { return V(a, b).Length() }},
		{"Dot", func(a, b Num) Num { return V(a, b).Dot(V(b, a-b)) }},
		{"Cross", func(a, b Num) Num { return V(a, b).Cross(V(b>>3, a)) }},
	}
	for _, b := range binary {
		sum(b.name, len(ps), func(h hash.Hash) {
			for _, p := range ps {
				put(h, b.f(p[0], p[1]))
			}
		})
	}
	sum("Normalize", len(ps), func(h hash.Hash) {
		for _, p := range ps {
			v := V(p[0], p[1]).Normalize()
			put(h, v.X, v.Y)
		}
	})
	sum("Rotate", len(ps), func(h hash.Hash) {
		for _, p := range ps {
			v := V(p[0], p[1]>>8).Rotate(p[1])
			put(h, v.X, v.Y)
		}
	})
	return lines
}

func TestGoldenHashes(t *testing.T) {
	got := hashes()
	n := 0
	for _, l := range got {
		var name, sum string
		var c int
		fmt.Sscan(l, &name, &sum, &c)
		n += c
	}
	t.Logf("%d results of %d functions hashed on %s/%s", n, len(got), runtime.GOOS, runtime.GOARCH)
	if os.Getenv("REWIND_WRITE_GOLDEN") == "1" {
		if err := os.WriteFile(goldenFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(filepath.FromSlash(goldenFile))
	if err != nil {
		t.Fatalf("%v (REWIND_WRITE_GOLDEN=1 writes it)", err)
	}
	defer f.Close()
	var want []string
	for s := bufio.NewScanner(f); s.Scan(); {
		want = append(want, s.Text())
	}
	if len(want) != len(got) {
		t.Fatalf("%d functions hashed, %s has %d", len(got), goldenFile, len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("on %s/%s:\n got  %s\n want %s", runtime.GOOS, runtime.GOARCH, got[i], want[i])
		}
	}
}
