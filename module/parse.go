package module

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// The binary reading package module does itself, before wazero compiles a
// module: the imports (only rewind.log is allowed), the memory (one, not
// shared, not 64-bit), the defined globals (the mutable ones are part of
// the world) and the export section (rewritten to export every mutable
// global, so the engine can read and write them between steps).

const (
	secType   = 1
	secImport = 2
	secMemory = 5
	secGlobal = 6
	secExport = 7

	wasmPage = 65536

	// globalExportPrefix names the exports the engine adds for a module's
	// mutable globals: "rewind:global:3" is defined global 3.
	globalExportPrefix = "rewind:global:"
)

// valtype names, for errors and for globals.
var valNames = map[byte]string{0x7F: "i32", 0x7E: "i64", 0x7D: "f32", 0x7C: "f64", 0x7B: "v128", 0x70: "funcref", 0x6F: "externref"}

// global is one of a module's defined globals.
type global struct {
	index   int  // in the global index space (no global is imported)
	typ     byte // valtype
	mutable bool
}

// parsed is what package module reads of a module's binary.
type parsed struct {
	memMin, memMax uint32 // pages
	memHasMax      bool
	globals        []global // mutable defined globals, in index order
	logImport      bool
	exportAt       [2]int // the export section's [start, end) including its id and size
	exportBody     []byte // its content
}

// reader reads a module's binary; every read checks bounds.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format+" at byte %d", append([]any{ErrFormat}, append(a, r.pos)...)...)
	}
	r.pos = len(r.b)
}

func (r *reader) byte() byte {
	if r.pos >= len(r.b) {
		r.fail("truncated")
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

// u32 reads an unsigned LEB128 of at most 32 bits.
func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint32(c&0x7F) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.fail("bad LEB128")
	return 0
}

// skipLEB skips a signed or unsigned LEB128 of at most 10 bytes.
func (r *reader) skipLEB() {
	for i := 0; i < 10; i++ {
		if r.byte()&0x80 == 0 {
			return
		}
	}
	r.fail("bad LEB128")
}

func (r *reader) bytes(n uint32) []byte {
	if uint64(n) > uint64(len(r.b)-r.pos) {
		r.fail("truncated")
		return nil
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b
}

func (r *reader) name() string { return string(r.bytes(r.u32())) }

// parse reads b's sections. It refuses imports other than rewind.log and
// the memory and global features contract v1 does not take.
func parse(b []byte) (*parsed, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, fmt.Errorf("%w: no \\0asm magic", ErrFormat)
	}
	if v := binary.LittleEndian.Uint32(b[4:8]); v != 1 {
		return nil, fmt.Errorf("%w: binary version %d (want 1)", ErrFormat, v)
	}
	p := &parsed{exportAt: [2]int{-1, -1}}
	var types [][2][]byte // params, results
	memories := 0
	r := &reader{b: b, pos: 8}
	for r.pos < len(b) && r.err == nil {
		start := r.pos
		id := r.byte()
		body := r.bytes(r.u32())
		if r.err != nil {
			break
		}
		s := &reader{b: body}
		var err error
		switch id {
		case secType:
			types = parseTypes(s)
		case secImport:
			err = p.parseImports(s, types)
		case secMemory:
			memories, err = p.parseMemory(s)
		case secGlobal:
			err = p.parseGlobals(s)
		case secExport:
			p.exportAt, p.exportBody = [2]int{start, r.pos}, body
		}
		if err != nil {
			return nil, err
		}
		if s.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, s.err)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if memories == 0 {
		return nil, fmt.Errorf("%w: the module defines no memory", ErrMemory)
	}
	if p.exportAt[0] < 0 {
		return nil, fmt.Errorf("%w: no export section", ErrContract)
	}
	return p, nil
}

func parseTypes(s *reader) [][2][]byte {
	n := s.u32()
	var ts [][2][]byte
	for i := uint32(0); i < n && s.err == nil; i++ {
		if f := s.byte(); f != 0x60 {
			s.fail("type %d is not a function type (0x%02x)", i, f)
			break
		}
		params := s.bytes(s.u32())
		results := s.bytes(s.u32())
		ts = append(ts, [2][]byte{params, results})
	}
	return ts
}

func (p *parsed) parseImports(s *reader, types [][2][]byte) error {
	n := s.u32()
	for i := uint32(0); i < n && s.err == nil; i++ {
		mod, name := s.name(), s.name()
		kind := s.byte()
		what := mod + "." + name
		if s.err != nil {
			break
		}
		if mod != "rewind" || name != "log" || kind != 0 {
			return fmt.Errorf("%w: %s (%s): a module imports nothing but rewind.log", ErrImport, what, kindName(kind))
		}
		t := s.u32()
		if int(t) >= len(types) || string(types[t][0]) != "\x7F\x7F" || len(types[t][1]) != 0 {
			return fmt.Errorf("%w: rewind.log must be a function (i32, i32) -> ()", ErrImport)
		}
		p.logImport = true
	}
	return nil
}

func kindName(k byte) string {
	switch k {
	case 0:
		return "function"
	case 1:
		return "table"
	case 2:
		return "memory"
	case 3:
		return "global"
	case 4:
		return "tag"
	}
	return "kind " + strconv.Itoa(int(k))
}

func (p *parsed) parseMemory(s *reader) (int, error) {
	n := s.u32()
	if n > 1 {
		return 0, fmt.Errorf("%w: %d memories (multiple memories): a module has one", ErrFeature, n)
	}
	if n == 0 {
		return 0, nil
	}
	flags := s.byte()
	switch {
	case flags&2 != 0:
		return 0, fmt.Errorf("%w: shared memory (threads)", ErrFeature)
	case flags&^1 != 0:
		return 0, fmt.Errorf("%w: memory flags 0x%02x (64-bit memory or custom page size)", ErrFeature, flags)
	}
	p.memMin = s.u32()
	if flags&1 != 0 {
		p.memMax, p.memHasMax = s.u32(), true
	}
	return 1, nil
}

func (p *parsed) parseGlobals(s *reader) error {
	n := s.u32()
	for i := uint32(0); i < n && s.err == nil; i++ {
		typ, mut := s.byte(), s.byte()
		if mut > 1 {
			s.fail("global %d: mutability %d", i, mut)
			break
		}
		if mut == 1 {
			switch typ {
			case 0x7F, 0x7E, 0x7D, 0x7C:
			default:
				return fmt.Errorf("%w: mutable global %d of type %s (only i32, i64, f32, f64 globals may change)", ErrFeature, i, valName(typ))
			}
			p.globals = append(p.globals, global{index: int(i), typ: typ, mutable: true})
		}
		skipConstExpr(s)
	}
	return nil
}

func valName(t byte) string {
	if n, ok := valNames[t]; ok {
		return n
	}
	return fmt.Sprintf("0x%02x", t)
}

// skipConstExpr skips a constant expression up to and including its end
// (0x0B); wazero validates what it holds.
func skipConstExpr(s *reader) {
	for s.err == nil {
		switch op := s.byte(); op {
		case 0x0B:
			return
		case 0x41, 0x42, 0x23, 0xD2: // i32.const, i64.const, global.get, ref.func
			s.skipLEB()
		case 0x43:
			s.bytes(4)
		case 0x44:
			s.bytes(8)
		case 0xD0: // ref.null t
			s.byte()
		case 0x6A, 0x6B, 0x6C, 0x7C, 0x7D, 0x7E: // extended constant expressions
		case 0xFD: // v128.const
			s.u32()
			s.bytes(16)
		default:
			s.fail("opcode 0x%02x in a constant expression", op)
		}
	}
}

// withGlobalExports returns b with its export section rewritten to also
// export every mutable global as globalExportPrefix + its index.
func (p *parsed) withGlobalExports(b []byte) []byte {
	if len(p.globals) == 0 {
		return b
	}
	s := &reader{b: p.exportBody}
	n := s.u32()
	rest := p.exportBody[s.pos:]
	body := binary.AppendUvarint(nil, uint64(n)+uint64(len(p.globals)))
	body = append(body, rest...)
	for _, g := range p.globals {
		name := globalExportPrefix + strconv.Itoa(g.index)
		body = binary.AppendUvarint(body, uint64(len(name)))
		body = append(body, name...)
		body = append(body, 3)
		body = binary.AppendUvarint(body, uint64(g.index))
	}
	out := make([]byte, 0, len(b)+len(body)-len(p.exportBody)+8)
	out = append(out, b[:p.exportAt[0]]...)
	out = append(out, secExport)
	out = binary.AppendUvarint(out, uint64(len(body)))
	out = append(out, body...)
	return append(out, b[p.exportAt[1]:]...)
}
