package fixed

import "testing"

func TestSaturation(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want Num
	}{
		{"Max+1", Max.Add(1), Max},
		{"Max+Max", Max.Add(Max), Max},
		{"Min-1", Min.Sub(1), Min},
		{"Min+Min", Min.Add(Min), Min},
		{"Max-Min", Max.Sub(Min), Max},
		{"Min-Max", Min.Sub(Max), Min},
		{"0-Min", Num(0).Sub(Min), Max},
		{"-1-Min", Num(-1).Sub(Min), Max},
		{"Max+Min", Max.Add(Min), -1},
		{"-Min", Min.Neg(), Max},
		{"|Min|", Min.Abs(), Max},
		{"Max*2", Max.Mul(FromInt(2)), Max},
		{"Max*-2", Max.Mul(FromInt(-2)), Min},
		{"Min*Min", Min.Mul(Min), Max},
		{"Min*1", Min.Mul(One), Min},
		{"Min*-1", Min.Mul(-One), Max},
		{"Max*1", Max.Mul(One), Max},
		{"Max/0.5", Max.Div(Half), Max},
		{"Min/0.5", Min.Div(Half), Min},
		{"Min/-1", Min.Div(-One), Max},
		{"1/0", One.Div(0), Max},
		{"-1/0", (-One).Div(0), Min},
		{"0/0", Num(0).Div(0), 0},
		{"Max/eps", Max.Div(Epsilon), Max},
		{"MulInt", FromInt(1 << 46).MulInt(4), Max},
		{"MulInt-", FromInt(1 << 46).MulInt(-4), Min},
		{"FromInt big", FromInt(1 << 50), Max},
		{"FromInt small", FromInt(-1 << 50), Min},
		{"FromInt edge", FromInt(1<<47 - 1), Num((1<<47 - 1) << 16)},
		{"FromInt -edge", FromInt(-1 << 47), Min},
		{"FromFloat big", FromFloat(1e300), Max},
		{"Ceil Max", Max.Ceil(), Max.Floor()},
		{"Round Max", Max.Round(), Max.Floor()},
		{"Vec Add X", V(Max, Min).Add(V(One, -One)).X, Max},
		{"Vec Add Y", V(Max, Min).Add(V(One, -One)).Y, Min},
		{"Length", V(Max, Max).Length(), Max},
		{"Dot", V(Max, Max).Dot(V(Max, Max)), Max},
		{"Dot-", V(Max, Max).Dot(V(Min, Min)), Min},
		{"Exp big", Exp(FromInt(40)), Max},
		{"Exp Max", Exp(Max), Max},
		{"Exp Min", Exp(Min), 0},
		{"Log 0", Log(0), Min},
		{"Log -1", Log(-One), Min},
		{"Sqrt -1", Sqrt(-One), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	// Wrapping would have given these: the opposite sign.
	m := Max
	if m+1 != Min || m.Add(1) == Min {
		t.Error("the plain operator wraps and Add saturates")
	}
}

func TestValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want Num
	}{
		{"1.5*2", FromFrac(3, 2).Mul(FromInt(2)), FromInt(3)},
		{"-1.5*2", FromFrac(-3, 2).Mul(FromInt(2)), FromInt(-3)},
		{"7/2", FromInt(7).Div(FromInt(2)), FromFrac(7, 2)},
		{"1/3", One.Div(FromInt(3)), 21845},
		{"2/3", FromInt(2).Div(FromInt(3)), 43691},
		{"-2/3", FromInt(-2).Div(FromInt(3)), -43691},
		{"eps*0.5 (tie)", Epsilon.Mul(Half), Epsilon},
		{"-eps*0.5 (tie)", (-Epsilon).Mul(Half), -Epsilon},
		{"eps*0.25", Epsilon.Mul(One / 4), 0},
		{"Floor -1.5", FromFrac(-3, 2).Floor(), FromInt(-2)},
		{"Ceil -1.5", FromFrac(-3, 2).Ceil(), FromInt(-1)},
		{"Round -1.5", FromFrac(-3, 2).Round(), FromInt(-2)},
		{"Round 1.5", FromFrac(3, 2).Round(), FromInt(2)},
		{"Round 1.4", FromFrac(14, 10).Round(), One},
		{"Frac -1.25", FromFrac(-5, 4).Frac(), FromFrac(3, 4)},
		{"Sqrt 2", Sqrt(FromInt(2)), 92682},
		{"Sqrt 1e10", Sqrt(FromInt(10_000_000_000)), FromInt(100_000)},
		{"Sqrt eps", Sqrt(Epsilon), 256},
		{"Sin 0", Sin(0), 0},
		{"Cos 0", Cos(0), One},
		{"Sin π/2", Sin(HalfPi), One},
		{"Sin π", Sin(Pi), 0},
		{"Sin -π/2", Sin(-HalfPi), -One},
		{"Cos π", Cos(Pi), -One},
		{"Cos -π", Cos(-Pi), -One},
		{"Atan2 0,0", Atan2(0, 0), 0},
		{"Atan2 0,-1", Atan2(0, -One), Pi},
		{"Atan2 -eps,-1", Atan2(-Epsilon, -One), -Pi + 1},
		{"Atan2 1,0", Atan2(One, 0), HalfPi},
		{"Atan2 -1,0", Atan2(-One, 0), -HalfPi},
		{"Atan2 1,1", Atan2(One, One), FromFrac(205887, 4<<16)},
		{"Atan2 Min,Min", Atan2(Min, Min), -Atan2(One, One) - HalfPi},
		{"Exp 0", Exp(0), One},
		{"Exp 1", Exp(One), E},
		{"Log 1", Log(One), 0},
		{"Log e", Log(E), One},
		{"Log eps", Log(Epsilon), -726817},
		{"Length 3,4", VInt(3, 4).Length(), FromInt(5)},
		{"Cross", VInt(1, 0).Cross(VInt(0, 1)), One},
		{"Normalize", VInt(0, -7).Normalize().Y, -One},
		{"Rotate", VInt(1, 0).Rotate(HalfPi).Y, One},
		{"Angle", VInt(-1, 0).Angle(), Pi},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d (%v), want %d (%v)", c.name, c.got, c.got, c.want, c.want)
		}
	}
	if s := FromFrac(-3, 2).String(); s != "-1.5" {
		t.Errorf("String = %q", s)
	}
	if VInt(5, 0).Normalize() != V(One, 0) || (Vec{}).Normalize() != (Vec{}) {
		t.Error("Normalize")
	}
	if FromFloat(1.25) != FromFrac(5, 4) || FromFrac(5, 4).Float() != 1.25 || FromInt(-3).Int() != -3 {
		t.Error("conversions")
	}
}
