package inputs

import "testing"

type testInput struct {
	Move   int8    `rewind:"min=-100,max=100"`
	Turn   int16   `rewind:"min=-1000,max=1000"`
	Fire   bool    //
	Weapon uint8   `rewind:"enum,min=0,max=7"`
	Aim    float32 `rewind:"min=-4,max=4"`
	Big    int64   //
	Speed  float64 //
}

func testInputs(t testing.TB, n int) (*Type[testInput], [][]byte) {
	it, err := NewType[testInput]()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	v := testInput{}
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
		p := it.Pack(make([]byte, it.Size()), &v)
		if err := it.Sanitize(p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return it, out
}
