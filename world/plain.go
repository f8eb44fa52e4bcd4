package world

import (
	"fmt"
	"reflect"
)

// plainInfo describes a plain record type: its size, alignment and the byte
// offsets of its bools (which must hold 0 or 1 to be safe in Go).
type plainInfo struct {
	size  int
	align int
	bools []int
	desc  string // canonical description, part of the layout hash
	// fields are the leaves, for diffs and dumps (not hashed)
	fields []Field
	typ    reflect.Type
}

// checkPlain verifies that t is plain fixed-size data with no padding and
// returns its description. Errors name the type and the field.
func checkPlain(t reflect.Type) (plainInfo, error) {
	var info plainInfo
	if t == nil {
		return info, fmt.Errorf("%w: nil type", ErrNotPlain)
	}
	desc, err := walkPlain(t, t.String(), 0, &info.bools)
	if err != nil {
		return info, err
	}
	info.size = int(t.Size())
	info.align = t.Align()
	info.desc = desc
	info.fields = leafFields(t)
	info.typ = t
	if info.size == 0 {
		return info, fmt.Errorf("%w: type %s has size zero", ErrNotPlain, t)
	}
	return info, nil
}

// walkPlain checks t (found at path, starting at byte offset off of the
// record) and appends the offsets of bools to bools.
func walkPlain(t reflect.Type, path string, off int, bools *[]int) (string, error) {
	switch t.Kind() {
	case reflect.Bool:
		*bools = append(*bools, off)
		return "b", nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return fmt.Sprintf("%c%d", kindLetter(t.Kind()), t.Size()), nil
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		return "", fmt.Errorf("%w: %s is %s, whose size depends on the platform (use int32, int64, uint32 or uint64)", ErrNotPlain, path, t)
	case reflect.Array:
		if t.Len() == 0 {
			return fmt.Sprintf("[0]%s", t.Elem().Kind()), nil
		}
		es := int(t.Elem().Size())
		// Check the element once, then record bool offsets of every element.
		var eb []int
		ed, err := walkPlain(t.Elem(), path+"[]", 0, &eb)
		if err != nil {
			return "", err
		}
		if len(eb) > 0 {
			for i := 0; i < t.Len(); i++ {
				for _, b := range eb {
					*bools = append(*bools, off+i*es+b)
				}
			}
		}
		return fmt.Sprintf("[%d]%s", t.Len(), ed), nil
	case reflect.Struct:
		s := "{"
		end := 0
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			fp := path + "." + f.Name
			if int(f.Offset) != end {
				prev := "the start"
				if i > 0 {
					prev = "field " + t.Field(i-1).Name
				}
				return "", fmt.Errorf("%w: %s: %d bytes of padding after %s (padding bytes are not deterministic; reorder the fields or add an explicit filler field)", ErrNotPlain, fp, int(f.Offset)-end, prev)
			}
			fd, err := walkPlain(f.Type, fp, off+int(f.Offset), bools)
			if err != nil {
				return "", err
			}
			if i > 0 {
				s += ","
			}
			s += fd
			end = int(f.Offset + f.Type.Size())
		}
		if end != int(t.Size()) {
			return "", fmt.Errorf("%w: %s: %d bytes of padding at the end of the struct (padding bytes are not deterministic; reorder the fields or add an explicit filler field)", ErrNotPlain, path, int(t.Size())-end)
		}
		return s + "}", nil
	case reflect.Pointer, reflect.UnsafePointer:
		return "", fmt.Errorf("%w: %s is a pointer (%s); store an index or id instead", ErrNotPlain, path, t)
	case reflect.Slice:
		return "", fmt.Errorf("%w: %s is a slice (%s); use a fixed-size array or a table", ErrNotPlain, path, t)
	case reflect.Map:
		return "", fmt.Errorf("%w: %s is a map (%s); use a table", ErrNotPlain, path, t)
	case reflect.String:
		return "", fmt.Errorf("%w: %s is a string; use a fixed-size byte array", ErrNotPlain, path)
	case reflect.Interface:
		return "", fmt.Errorf("%w: %s is an interface (%s)", ErrNotPlain, path, t)
	case reflect.Chan:
		return "", fmt.Errorf("%w: %s is a channel (%s)", ErrNotPlain, path, t)
	case reflect.Func:
		return "", fmt.Errorf("%w: %s is a func (%s)", ErrNotPlain, path, t)
	}
	return "", fmt.Errorf("%w: %s has unsupported kind %s", ErrNotPlain, path, t.Kind())
}

func kindLetter(k reflect.Kind) byte {
	switch k {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return 'i'
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 'u'
	case reflect.Float32, reflect.Float64:
		return 'f'
	}
	return 'c'
}
