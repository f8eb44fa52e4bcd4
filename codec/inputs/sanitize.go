package inputs

import (
	"fmt"
	"math"
)

// Sanitize puts the packed input p (Size() bytes) into canonical form in
// place: NaN and ±Inf floats become 0, floats and integers outside their
// bounds are clamped, a bool byte other than 0 becomes 1. An enum field
// outside its bounds is refused with an error wrapping ErrBadEnum (p may be
// partly sanitized then: discard it). A p of the wrong length fails with
// ErrSize. Sanitize does not allocate unless it fails.
func (s *Schema) Sanitize(p []byte) error {
	if len(p) != s.size {
		return fmt.Errorf("%w: %d bytes, want %d", ErrSize, len(p), s.size)
	}
	for i := range s.fields {
		f := &s.fields[i]
		switch f.kind {
		case kindBool:
			if p[f.off] > 1 {
				p[f.off] = 1
			}
		case kindInt:
			if !f.bounded {
				continue
			}
			v := signed(f.load(p), f.bits)
			if v >= f.imin && v <= f.imax {
				continue
			}
			if f.enum {
				return fmt.Errorf("%w: field %s = %d outside [%d, %d]", ErrBadEnum, f.name, v, f.imin, f.imax)
			}
			v = min(max(v, f.imin), f.imax)
			f.store(p, uint64(v))
		case kindUint:
			if !f.bounded {
				continue
			}
			v := f.load(p)
			if v >= f.umin && v <= f.umax {
				continue
			}
			if f.enum {
				return fmt.Errorf("%w: field %s = %d outside [%d, %d]", ErrBadEnum, f.name, v, f.umin, f.umax)
			}
			v = min(max(v, f.umin), f.umax)
			f.store(p, v)
		case kindFloat32:
			v := float64(math.Float32frombits(uint32(f.load(p))))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
				if f.bounded {
					v = min(max(v, f.fmin), f.fmax)
				}
				f.store(p, uint64(math.Float32bits(float32(v))))
				continue
			}
			if f.bounded && (v < f.fmin || v > f.fmax) {
				v = min(max(v, f.fmin), f.fmax)
				f.store(p, uint64(math.Float32bits(float32(v))))
			}
		case kindFloat64:
			v := math.Float64frombits(f.load(p))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
				if f.bounded {
					v = min(max(v, f.fmin), f.fmax)
				}
				f.store(p, math.Float64bits(v))
				continue
			}
			if f.bounded && (v < f.fmin || v > f.fmax) {
				v = min(max(v, f.fmin), f.fmax)
				f.store(p, math.Float64bits(v))
			}
		}
	}
	return nil
}
