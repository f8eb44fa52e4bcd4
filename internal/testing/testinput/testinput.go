// Package testinput is the input struct the codec and codec/inputs tests
// pack (every kind of field: ranged, enum, bool, float, wide), and a
// sequence of its values that changes each kind in turn. It imports
// nothing of the engine, so that codec/inputs' own tests may use it.
package testinput

// Input is a game's input with every kind of field a schema packs.
type Input struct {
	Move   int8    `rewind:"min=-100,max=100"`
	Turn   int16   `rewind:"min=-1000,max=1000"`
	Fire   bool    //
	Weapon uint8   `rewind:"enum,min=0,max=7"`
	Aim    float32 `rewind:"min=-4,max=4"`
	Big    int64   //
	Speed  float64 //
}

// Packed returns n inputs packed with pack, each changing a field kind
// of the one before (all of them every five), or pack's first error.
func Packed(n int, pack func(v *Input) ([]byte, error)) ([][]byte, error) {
	var out [][]byte
	v := Input{}
	for i := 0; i < n; i++ {
		switch i % 5 {
		case 1:
			v.Move = int8(i%200 - 100)
		case 2:
			v.Turn += 256
			v.Aim += 0.125
		case 3:
			v.Fire = !v.Fire
			v.Weapon = uint8(i % 8)
		case 4:
			v.Big = -v.Big - int64(i)<<40
			v.Speed = float64(i) * 1.5
		}
		p, err := pack(&v)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
