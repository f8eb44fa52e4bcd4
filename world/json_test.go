package world

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

type jsonRec struct {
	B   bool
	I8  int8
	I16 int16
	U8  uint8
	_   [3]byte
	I32 int32
	U32 uint32
	F32 float32
	_   [4]byte
	I64 int64
	U64 uint64
	F64 float64
	C   complex64
	A   [2]uint16
	_   [4]byte
}

// TestAppendJSON renders a world of every kind of field, table, grid and
// value and reads it back with encoding/json.
func TestAppendJSON(t *testing.T) {
	s := NewSchema()
	tick := AddValue[uint64](s, "tick")
	recs := AddTable[jsonRec](s, "recs", 4)
	grid := AddGrid[int16](s, "grid", 3, 2)
	rng := AddRNG(s, "rng")
	AddTable[jsonRec](s, "empty", 2)
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	tick.Set(w, math.MaxUint64)
	_, _ = recs.Add(w, jsonRec{B: true, I8: -8, U8: 200, I16: -300, I32: -70000, U32: 4e9, F32: 0.1, I64: math.MinInt64,
		U64: 1<<63 + 5, F64: math.NaN(), C: complex(1.5, -2), A: [2]uint16{7, 65535}})
	_, _ = recs.Add(w, jsonRec{F64: math.Inf(-1)})
	grid.Set(w, 2, 1, -5)
	grid.Set(w, 0, 0, 9)
	rng.Seed(w, 1)
	got := string(w.AppendJSON(nil))
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	want := map[string]any{
		"tick": "18446744073709551615",
		"recs": []any{
			map[string]any{"B": true, "I8": -8.0, "U8": 200.0, "I16": -300.0, "I32": -70000.0, "U32": 4e9, "F32": 0.1,
				"I64": "-9223372036854775808", "U64": "9223372036854775813", "F64": "NaN", "C": []any{1.5, -2.0},
				"A": []any{7.0, 65535.0}},
			map[string]any{"B": false, "I8": 0.0, "U8": 0.0, "I16": 0.0, "I32": 0.0, "U32": 0.0, "F32": 0.0,
				"I64": "0", "U64": "0", "F64": "-Inf", "C": []any{0.0, 0.0}, "A": []any{0.0, 0.0}},
		},
		"grid":  []any{[]any{9.0, 0.0, 0.0}, []any{0.0, 0.0, -5.0}},
		"empty": []any{},
	}
	for k, wv := range want {
		if !reflect.DeepEqual(v[k], wv) {
			t.Errorf("%s = %#v, want %#v", k, v[k], wv)
		}
	}
	r, ok := v["rng"].(map[string]any)
	if !ok || len(r["S"].([]any)) != 4 {
		t.Errorf("rng = %#v", v["rng"])
	}
	if len(v) != 5 {
		t.Errorf("%d keys: %s", len(v), got)
	}
}
