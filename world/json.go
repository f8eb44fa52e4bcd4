package world

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// AppendJSON appends w rendered as one JSON object through its schema, for
// programs in other languages (package gateway's initial_state): a key
// per registered name, the single values first, then the tables and
// grids, each in registration order.
//
//   - a table is an array of its records in use (index 0 to Len-1);
//   - a grid is an array of rows (y from 0), each an array of cells (x from
//     0);
//   - a value, a record or a cell is rendered by its type: a struct is an
//     object with its fields by Go name (blank fields, "_", are left out:
//     they are always zero), an array is an array, a bool is true or false,
//     an integer of up to 32 bits is a number, a 64-bit integer is its
//     decimal text in a string (JSON numbers lose precision past 2⁵³), a
//     float is a number in its shortest form (NaN and ±Inf, which JSON
//     lacks, are the strings "NaN", "+Inf" and "-Inf"), a complex number is
//     [real, imaginary].
//
// A random number generator (AddRNG) is a value {"S": [four uint64
// strings]}. The rendering is read from the world's bytes, so it shows
// exactly what the hash covers (docs/world.md, "The hash, exactly").
func (w *World) AppendJSON(dst []byte) []byte {
	l := w.layout
	dst = append(dst, '{')
	first := true
	key := func(name string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, name)
		dst = append(dst, ':')
	}
	for i := range l.values {
		v := &l.values[i]
		key(v.name)
		dst = appendJSONValue(dst, v.typ, w.mem[v.off:v.off+v.elem])
	}
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		if r.kind == kindSceneMeta {
			continue // its values are listed with the others
		}
		key(r.name)
		dst = append(dst, '[')
		switch r.kind {
		case kindTable:
			n := w.tableLen(r.lenOff)
			for j := 0; j < n; j++ {
				if j > 0 {
					dst = append(dst, ',')
				}
				off := r.off + j*r.elem
				dst = appendJSONValue(dst, r.typ, w.mem[off:off+r.elem])
			}
		case kindGrid:
			rows := r.count / r.width
			for y := 0; y < rows; y++ {
				if y > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, '[')
				for x := 0; x < r.width; x++ {
					if x > 0 {
						dst = append(dst, ',')
					}
					off := r.off + (y*r.width+x)*r.elem
					dst = appendJSONValue(dst, r.typ, w.mem[off:off+r.elem])
				}
				dst = append(dst, ']')
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}

// appendJSONValue appends the value of type t held in b (t.Size() bytes,
// little-endian) as JSON.
func appendJSONValue(dst []byte, t reflect.Type, b []byte) []byte {
	switch t.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(dst, b[0] != 0)
	case reflect.Int8:
		return strconv.AppendInt(dst, int64(int8(b[0])), 10)
	case reflect.Int16:
		return strconv.AppendInt(dst, int64(int16(binary.LittleEndian.Uint16(b))), 10)
	case reflect.Int32:
		return strconv.AppendInt(dst, int64(int32(binary.LittleEndian.Uint32(b))), 10)
	case reflect.Int64:
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, int64(binary.LittleEndian.Uint64(b)), 10)
		return append(dst, '"')
	case reflect.Uint8:
		return strconv.AppendUint(dst, uint64(b[0]), 10)
	case reflect.Uint16:
		return strconv.AppendUint(dst, uint64(binary.LittleEndian.Uint16(b)), 10)
	case reflect.Uint32:
		return strconv.AppendUint(dst, uint64(binary.LittleEndian.Uint32(b)), 10)
	case reflect.Uint64:
		dst = append(dst, '"')
		dst = strconv.AppendUint(dst, binary.LittleEndian.Uint64(b), 10)
		return append(dst, '"')
	case reflect.Float32:
		return appendJSONFloat(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32)
	case reflect.Float64:
		return appendJSONFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64)
	case reflect.Complex64:
		dst = append(dst, '[')
		dst = appendJSONFloat(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32)
		dst = append(dst, ',')
		dst = appendJSONFloat(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))), 32)
		return append(dst, ']')
	case reflect.Complex128:
		dst = append(dst, '[')
		dst = appendJSONFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64)
		dst = append(dst, ',')
		dst = appendJSONFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(b[8:])), 64)
		return append(dst, ']')
	case reflect.Array:
		es := int(t.Elem().Size())
		dst = append(dst, '[')
		for i := 0; i < t.Len(); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, t.Elem(), b[i*es:(i+1)*es])
		}
		return append(dst, ']')
	case reflect.Struct:
		dst = append(dst, '{')
		n := 0
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Name == "_" {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = appendJSONString(dst, f.Name)
			dst = append(dst, ':')
			dst = appendJSONValue(dst, f.Type, b[f.Offset:f.Offset+f.Type.Size()])
		}
		return append(dst, '}')
	}
	return append(dst, "null"...) // unreachable: checkPlain admits no other kind
}

// appendJSONFloat appends f (of bits 32 or 64) as a JSON number, or as
// "NaN", "+Inf" or "-Inf".
func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Inf"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}
