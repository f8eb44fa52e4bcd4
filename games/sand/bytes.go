package sand

import "unsafe"

// materialBytes views a row of Materials as bytes (Material is a uint8).
func materialBytes(m []Material) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(m))), len(m))
}
