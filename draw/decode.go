package draw

import (
	"encoding/binary"
	"fmt"
)

// Decode reads the list at address at of mem into l (replacing what l
// held, reusing its memory): a WebAssembly module's draw list, where mem
// is the module's memory and at the address rewind_draw returned, or
// AppendBinary's encoding at 0. The bytes are untrusted: a count over
// MaxCommands, commands past mem's end, texts and cells outside mem or
// adding up to over MaxData bytes are errors (ErrTooLarge, ErrTruncated,
// ErrBadData), never a panic; unknown ops are dropped; a text is cut to
// MaxText bytes.
func (l *List) Decode(mem []byte, at uint32) error {
	l.Reset()
	if uint64(at)+4 > uint64(len(mem)) {
		return fmt.Errorf("%w: count at %d, memory of %d bytes", ErrTruncated, at, len(mem))
	}
	n := binary.LittleEndian.Uint32(mem[at:])
	if n > MaxCommands {
		return fmt.Errorf("%w: %d commands (at most %d)", ErrTooLarge, n, MaxCommands)
	}
	start := uint64(at) + 4
	if start+uint64(n)*CommandSize > uint64(len(mem)) {
		return fmt.Errorf("%w: %d commands from %d, memory of %d bytes", ErrTruncated, n, start, len(mem))
	}
	for i := range uint64(n) {
		b := mem[start+i*CommandSize : start+(i+1)*CommandSize]
		c := Command{Op: Op(b[0]), Color: Color{b[1], b[2], b[3]}}
		for j := range c.Args {
			c.Args[j] = int32(binary.LittleEndian.Uint32(b[4+4*j:]))
		}
		if err := l.decoded(mem, c); err != nil {
			l.Reset()
			return fmt.Errorf("command %d: %w", i, err)
		}
	}
	return nil
}

// decoded appends c, read from mem, copying its text or cells.
func (l *List) decoded(mem []byte, c Command) error {
	switch c.Op {
	case OpFillRect, OpRect, OpCircle, OpLine, OpClear, OpPalette, OpSound:
		l.cmds = append(l.cmds, c)
		return nil
	case OpText, OpCells:
	default:
		return nil // unknown: skipped
	}
	addr, size := uint64(uint32(c.Args[2])), uint64(uint32(c.Args[3]))
	if c.Op == OpCells {
		cols, rows := CellsSize(c)
		if cols == 0 || rows == 0 || cols > MaxCellSide || rows > MaxCellSide || c.Color.B != 0 {
			return fmt.Errorf("%w: a cell block of %d×%d", ErrBadData, cols, rows)
		}
		size = uint64(cols * rows)
	}
	if addr+size > uint64(len(mem)) {
		return fmt.Errorf("%w: %d bytes at %d, memory of %d bytes", ErrBadData, size, addr, len(mem))
	}
	b := mem[addr : addr+size]
	if c.Op == OpText {
		b = []byte(cut(string(b), MaxText)) // a string: cut at a rune
		c.Args[3] = int32(len(b))
	}
	if len(l.data)+len(b) > MaxData {
		return fmt.Errorf("%w: over %d bytes of texts and cells", ErrTooLarge, MaxData)
	}
	c.Args[2] = int32(len(l.data))
	l.data = append(l.data, b...)
	l.cmds = append(l.cmds, c)
	return nil
}
