package draw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sample returns a list with every op.
func sample() *List {
	var l List
	l.Clear(RGB(8, 8, 12))
	l.FillRect(1, 2, 3, 4, RGB(255, 0, 0))
	l.Rect(-5, 6, 7, 8, RGB(0, 255, 0))
	l.Circle(10, 11, 12, RGB(0, 0, 255))
	l.Line(1, 1, 100, -100, RGB(1, 2, 3))
	l.Text(4, 16, "room ÅBC", RGB(255, 255, 255))
	l.Palette(0, RGB(18, 18, 28))
	l.Palette(3, RGB(128, 128, 140))
	l.Cells(0, 36, 4, 2, 2, 2, []byte{0, 1, 2, 3, 3, 2, 1, 0})
	l.Sound(Sound{880, 440, 70, 250})
	return &l
}

// recorder is a Drawer that writes what it is asked to draw.
type recorder struct{ b strings.Builder }

func (r *recorder) Clear(c Color) { fmt.Fprintf(&r.b, "clear %v\n", c) }
func (r *recorder) FillRect(x, y, w, h int32, c Color) {
	fmt.Fprintf(&r.b, "fill %d %d %d %d %v\n", x, y, w, h, c)
}
func (r *recorder) Rect(x, y, w, h int32, c Color) {
	fmt.Fprintf(&r.b, "rect %d %d %d %d %v\n", x, y, w, h, c)
}
func (r *recorder) Circle(x, y, rad int32, c Color) {
	fmt.Fprintf(&r.b, "circle %d %d %d %v\n", x, y, rad, c)
}
func (r *recorder) Line(x1, y1, x2, y2 int32, c Color) {
	fmt.Fprintf(&r.b, "line %d %d %d %d %v\n", x1, y1, x2, y2, c)
}
func (r *recorder) Text(x, y int32, s string, c Color) {
	fmt.Fprintf(&r.b, "text %d %d %q %v\n", x, y, s, c)
}
func (r *recorder) Cells(i int, x, y int32, cols, rows, w, h int, cells []byte, p *Palette) {
	fmt.Fprintf(&r.b, "cells#%d %d %d %dx%d %dx%d %v", i, x, y, cols, rows, w, h, cells)
	for _, c := range cells {
		fmt.Fprintf(&r.b, " %v", p[c])
	}
	r.b.WriteByte('\n')
}

func drawn(l *List) string {
	var r recorder
	l.Draw(&r)
	return r.b.String()
}

func TestRoundTrip(t *testing.T) {
	l := sample()
	b := l.AppendBinary(nil)
	if len(b) != l.Length() {
		t.Fatalf("Length %d, encoding %d bytes", l.Length(), len(b))
	}
	var got List
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.cmds, l.cmds) || string(got.data) != string(l.data) {
		t.Fatalf("round trip:\n%+v\n%+v", got.cmds, l.cmds)
	}
	want := `clear {8 8 12}
fill 1 2 3 4 {255 0 0}
rect -5 6 7 8 {0 255 0}
circle 10 11 12 {0 0 255}
line 1 1 100 -100 {1 2 3}
text 4 16 "room ÅBC" {255 255 255}
cells#8 0 36 4x2 2x2 [0 1 2 3 3 2 1 0] {18 18 28} {0 0 0} {0 0 0} {128 128 140} {128 128 140} {0 0 0} {0 0 0} {18 18 28}
`
	if s := drawn(&got); s != want {
		t.Fatalf("drawn:\n%s\nwant:\n%s", s, want)
	}
	if s := got.Sounds(nil); !reflect.DeepEqual(s, []Sound{{880, 440, 70, 250}}) {
		t.Fatalf("sounds %v", s)
	}
	for n := range len(b) - len(l.data) { // every truncation of the count and commands
		if err := new(List).UnmarshalBinary(b[:n]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	for n := len(b) - len(l.data); n < len(b); n++ { // of the data
		if err := new(List).UnmarshalBinary(b[:n]); !errors.Is(err, ErrBadData) {
			t.Fatalf("data truncated to %d: %v", n, err)
		}
	}
}

// module writes a draw list as a module would: the commands at at, a
// text elsewhere in memory.
func module(at uint32, cmds ...[]byte) []byte {
	mem := make([]byte, 256)
	binary.LittleEndian.PutUint32(mem[at:], uint32(len(cmds)))
	for i, c := range cmds {
		copy(mem[at+4+uint32(i)*CommandSize:], c)
	}
	copy(mem[200:], "hello")
	return mem
}

// cmd returns a command's 20 bytes.
func cmd(op Op, r, g, b uint8, a ...int32) []byte {
	out := []byte{byte(op), r, g, b}
	for _, v := range a {
		out = binary.LittleEndian.AppendUint32(out, uint32(v))
	}
	return out
}

func TestDecodeModule(t *testing.T) {
	mem := module(16,
		cmd(OpClear, 1, 2, 3, 0, 0, 0, 0),
		cmd(42, 9, 9, 9, 1, 2, 3, 4), // unknown: skipped
		cmd(OpText, 255, 255, 255, 5, 20, 200, 5),
		cmd(OpCircle, 0, 0, 0, 50, 60, 7, 99))
	var l List
	if err := l.Decode(mem, 16); err != nil {
		t.Fatal(err)
	}
	want := "clear {1 2 3}\ntext 5 20 \"hello\" {255 255 255}\ncircle 50 60 7 {0 0 0}\n"
	if s := drawn(&l); s != want {
		t.Fatalf("drawn:\n%s", s)
	}
	// The same list built in Go draws the same.
	var g List
	g.Clear(RGB(1, 2, 3))
	g.Text(5, 20, "hello", RGB(255, 255, 255))
	g.Circle(50, 60, 7, RGB(0, 0, 0))
	if s := drawn(&g); s != want {
		t.Fatalf("Go's list drawn:\n%s", s)
	}
}

func TestDecodeBad(t *testing.T) {
	for _, c := range []struct {
		name string
		mem  []byte
		at   uint32
		err  error
	}{
		{"count past memory", module(0), 254, ErrTruncated},
		{"address past memory", module(0), 1 << 31, ErrTruncated},
		{"too many", binary.LittleEndian.AppendUint32(nil, MaxCommands+1), 0, ErrTooLarge},
		{"commands past memory", binary.LittleEndian.AppendUint32(nil, 12), 0, ErrTruncated},
		{"text past memory", module(0, cmd(OpText, 0, 0, 0, 0, 0, 250, 10)), 0, ErrBadData},
		{"text at a negative address", module(0, cmd(OpText, 0, 0, 0, 0, 0, -1, 10)), 0, ErrBadData},
		{"no cells", module(0, cmd(OpCells, 1, 1, 0, 0, 0, 200, 0)), 0, ErrBadData},
		{"cells past memory", module(0, cmd(OpCells, 1, 1, 0, 0, 0, 200, 8|8<<16)), 0, ErrBadData},
		{"cells with b set", module(0, cmd(OpCells, 1, 1, 1, 0, 0, 200, 1|1<<16)), 0, ErrBadData},
	} {
		var l List
		if err := l.Decode(c.mem, c.at); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
		if l.Len() != 0 {
			t.Errorf("%s: %d commands kept", c.name, l.Len())
		}
	}
}

func TestDecodeDataLimit(t *testing.T) {
	// 4097 commands all naming the same 4 KiB of cells: over MaxData.
	mem := make([]byte, 4+4097*CommandSize+4096)
	binary.LittleEndian.PutUint32(mem, 4097)
	c := cmd(OpCells, 1, 1, 0, 0, 0, int32(len(mem)-4096), 64|64<<16)
	for i := range 4097 {
		copy(mem[4+i*CommandSize:], c)
	}
	if err := new(List).Decode(mem, 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%v", err)
	}
}

func TestTextCut(t *testing.T) {
	var l List
	l.Text(0, 0, strings.Repeat("é", MaxText), Color{}) // 2 bytes a rune
	if n := len(l.Data(l.Command(0))); n != MaxText {
		t.Fatalf("text of %d bytes", n)
	}
	l.Reset()
	l.Text(0, 0, "a"+strings.Repeat("é", MaxText), Color{})
	if s := l.Data(l.Command(0)); len(s) != MaxText-1 {
		t.Fatalf("text of %d bytes, cut mid-rune?", len(s))
	}
}

func TestCellsRefused(t *testing.T) {
	var l List
	l.Cells(0, 0, 0, 1, 1, 1, []byte{1})
	l.Cells(0, 0, 2, 2, 1, 1, []byte{1, 2, 3}) // too few cells
	l.Cells(0, 0, MaxCellSide+1, 1, 1, 1, make([]byte, MaxCellSide+1))
	if l.Len() != 0 {
		t.Fatalf("%d commands", l.Len())
	}
}

func TestControls(t *testing.T) {
	c := Controls{Keys: Left | Fire | Key2 | Key4}
	if c.Axis(Left, Right) != -1 || c.Axis(Up, Down) != 0 || !c.Has(Fire) || c.Has(Fire|Alt) || c.Number() != 4 {
		t.Fatalf("%+v", c)
	}
	if (Controls{Keys: Left | Right}).Axis(Left, Right) != 0 || (Controls{}).Number() != 0 {
		t.Fatal("neither")
	}
	if PointerDown != 1<<10 || Key1 != 1<<6 || Fire != 1<<4 {
		t.Fatal("bits are not rewind_control's")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(sample().AppendBinary(nil), uint32(0))
	f.Add(module(16, cmd(OpText, 255, 255, 255, 5, 20, 200, 5), cmd(OpCells, 2, 0, 0, 0, 0, 200, 2|2<<16)), uint32(16))
	f.Add([]byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, mem []byte, at uint32) {
		var l List
		if err := l.Decode(mem, at); err != nil {
			return
		}
		_ = drawn(&l)
		var again List
		if err := again.UnmarshalBinary(l.AppendBinary(nil)); err != nil {
			t.Fatalf("a decoded list's encoding: %v", err)
		}
		if drawn(&again) != drawn(&l) {
			t.Fatal("re-encoded list draws differently")
		}
	})
}

func TestPlayerColorAndIndexes(t *testing.T) {
	if PlayerColor(0) != PlayerColor(8) || PlayerColor(-1) != PlayerColor(7) || PlayerColor(1) == PlayerColor(0) {
		t.Fatal("player colours")
	}
	type material uint8
	m := []material{3, 1, 2}
	b := Indexes(m)
	m[0] = 0
	if string(b) != "\x00\x01\x02" {
		t.Fatalf("%v", b)
	}
}
