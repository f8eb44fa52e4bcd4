package webdoom

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"testing"
)

// wadLump is one lump of a test WAD.
type wadLump struct {
	name string
	data []byte
}

// makeWAD builds a WAD: header, the lumps' bytes, then the directory.
func makeWAD(magic string, lumps ...wadLump) []byte {
	b := make([]byte, 12)
	copy(b, magic)
	var dir []byte
	for _, l := range lumps {
		e := make([]byte, 16)
		binary.LittleEndian.PutUint32(e, uint32(len(b)))
		binary.LittleEndian.PutUint32(e[4:], uint32(len(l.data)))
		copy(e[8:], l.name)
		dir = append(dir, e...)
		b = append(b, l.data...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(lumps)))
	binary.LittleEndian.PutUint32(b[8:], uint32(len(b)))
	return append(b, dir...)
}

// wadByHand is an independent reading of a WAD for the tests: the whole
// file in memory, first occurrence of each wanted name.
func wadByHand(t testing.TB, b []byte, want map[string]bool) map[string][]byte {
	t.Helper()
	n, dir := int(binary.LittleEndian.Uint32(b[4:])), int(binary.LittleEndian.Uint32(b[8:]))
	out := map[string][]byte{}
	for i := 0; i < n; i++ {
		e := b[dir+16*i:]
		name := string(bytes.TrimRight(e[8:16], "\x00"))
		if _, dup := out[name]; dup || !want[name] {
			continue
		}
		ofs, size := binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:])
		out[name] = b[ofs : ofs+size]
	}
	return out
}

func TestReadWADLumps(t *testing.T) {
	want := map[string]bool{"PLAYPAL": true, "M_DOOM": true, "EMPTY": true, "TITLEPIC": true}
	w := makeWAD("IWAD",
		wadLump{"PLAYPAL", []byte("palette")},
		wadLump{"OTHER", []byte("x")},
		wadLump{"M_DOOM", []byte("logo")},
		wadLump{"PLAYPAL", []byte("second palette")}, // the first wins
		wadLump{"EMPTY", nil},
	)
	lumps, order, err := readWADLumps(bytes.NewReader(w), int64(len(w)), want)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(lumps, wadByHand(t, w, want), bytes.Equal) || string(lumps["PLAYPAL"]) != "palette" {
		t.Fatalf("lumps %q", lumps)
	}
	if got := len(order); got != 3 || order[0] != "PLAYPAL" || order[1] != "M_DOOM" || order[2] != "EMPTY" {
		t.Fatalf("order %q", order)
	}

	// A lump outside the file is skipped, and its name with it.
	bad := makeWAD("PWAD", wadLump{"PLAYPAL", []byte("pal")}, wadLump{"M_DOOM", []byte("logo")}, wadLump{"M_DOOM", []byte("ok")})
	dir := int(binary.LittleEndian.Uint32(bad[8:]))
	binary.LittleEndian.PutUint32(bad[dir+4:], 1<<30)       // PLAYPAL's size: past the end
	binary.LittleEndian.PutUint32(bad[dir+16:], 0xfffffff0) // M_DOOM's offset: negative
	lumps, _, err = readWADLumps(bytes.NewReader(bad), int64(len(bad)), want)
	if err != nil || len(lumps) != 0 {
		t.Fatalf("bad lumps: %q %v", lumps, err)
	}

	// Headers that lie are errors, never panics or huge allocations.
	for name, b := range map[string][]byte{
		"empty":          {},
		"short":          []byte("IWAD\x01\x00"),
		"magic":          makeWAD("JUNK"),
		"negative count": append([]byte("IWAD\xff\xff\xff\xff\x0c\x00\x00\x00"), make([]byte, 16)...),
		"absurd count":   []byte("IWAD\xff\xff\xff\x7f\x0c\x00\x00\x00"),
		"dir past end":   []byte("IWAD\x01\x00\x00\x00\x00\x00\x00\x01"),
		"dir too short":  []byte("IWAD\x02\x00\x00\x00\x0c\x00\x00\x00" + string(make([]byte, 20))),
	} {
		if _, _, err := readWADLumps(bytes.NewReader(b), int64(len(b)), want); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestReadWADFreedoom reads the UI lumps of Debian's Freedoom IWADs and
// checks them against an independent reading of the whole file.
func TestReadWADFreedoom(t *testing.T) {
	for _, name := range []string{"freedoom1.wad", "freedoom2.wad"} {
		b := freedoom(t, name)
		lumps, order, err := readWADLumps(bytes.NewReader(b), int64(len(b)), uiLumps)
		if err != nil {
			t.Fatal(err)
		}
		hand := wadByHand(t, b, uiLumps)
		if !maps.EqualFunc(lumps, hand, bytes.Equal) || len(order) != len(hand) {
			t.Fatalf("%s: %d lumps, by hand %d", name, len(lumps), len(hand))
		}
		for _, must := range []string{"PLAYPAL", "M_DOOM", "M_SKULL1", "M_SKULL2", "STCFN033", "STCFN095"} {
			if len(lumps[must]) == 0 {
				t.Errorf("%s lacks %s", name, must)
			}
		}
	}
}

// freedoom returns the bytes of Debian's /usr/share/games/doom/NAME, or
// skips the test when the freedoom package is not installed (fails it
// under CI, where .ci/run installs it).
func freedoom(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("/usr/share/games/doom/" + name)
	if err != nil {
		msg := fmt.Sprintf("Debian's freedoom package is not installed (apt-get install freedoom; .ci/run installs it): %v", err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg) // CI must have it
		}
		t.Skip(msg)
	}
	return b
}

func FuzzReadWAD(f *testing.F) {
	f.Add(makeWAD("IWAD", wadLump{"PLAYPAL", []byte("pal")}, wadLump{"M_DOOM", nil}, wadLump{"PLAYPAL", []byte("x")}))
	f.Add(makeWAD("PWAD", wadLump{"TITLEPIC", bytes.Repeat([]byte{7}, 100)}))
	f.Add([]byte("IWAD\xff\xff\xff\x7f\x0c\x00\x00\x00"))
	want := map[string]bool{"PLAYPAL": true, "M_DOOM": true, "TITLEPIC": true}
	f.Fuzz(func(t *testing.T, b []byte) {
		lumps, order, err := readWADLumps(bytes.NewReader(b), int64(len(b)), want)
		if err != nil {
			return
		}
		if len(order) != len(lumps) {
			t.Fatalf("order %q for %d lumps", order, len(lumps))
		}
		total := 0
		for name, l := range lumps {
			if !want[name] {
				t.Fatalf("unwanted lump %q", name)
			}
			if !bytes.Contains(b, l) {
				t.Fatalf("lump %s is not bytes of the file", name)
			}
			total += len(l)
		}
		if total > len(want)*len(b) {
			t.Fatalf("%d bytes of lumps from a %d-byte file", total, len(b))
		}
	})
}
