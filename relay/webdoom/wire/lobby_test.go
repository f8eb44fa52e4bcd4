package wire

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

const wdDefaultParamsJSON = `{"wad":"doom.wad","episode":1,"map":1,"skill":3,"mode":"coop","nomonsters":false,"fast":false,"respawn":false,"timer":0}`

func TestLobbyOutputBytes(t *testing.T) {
	p := DefaultParams()
	cases := []struct {
		got  []byte
		want string
	}{
		{(&Welcome{Slot: 2}).Append(nil), `{"t":"welcome","slot":2,"color":"Brown"}`},
		{(&Roster{Players: []LobbyPlayer{{0, "Green"}, {3, "bob"}}, FreeSlots: []int{1, 2}, Params: p}).Append(nil),
			`{"t":"roster","players":[{"slot":0,"color":"Green","name":"Green"},{"slot":3,"color":"Red","name":"bob"}],"freeSlots":[1,2],"params":` + wdDefaultParamsJSON + `,"inGame":false}`},
		{(&Roster{FreeSlots: []int{}, Params: p, InGame: true}).Append(nil),
			`{"t":"roster","players":[],"freeSlots":[],"params":` + wdDefaultParamsJSON + `,"inGame":true}`},
		{(&Countdown{N: 3}).Append(nil), `{"t":"countdown","n":3}`},
		{(&Launch{Params: p, Slots: []int{0, 2}, Names: []Name{{"Green", true}, {}, {"x y", true}, {}}}).Append(nil),
			`{"t":"launch","params":` + wdDefaultParamsJSON + `,"numplayers":4,"slots":[0,2],"names":["Green",null,"x y",null]}`},
		{(&Launch{Params: p, Slots: []int{1}, Join: true, Frontier: 420}).Append(nil),
			`{"t":"launch","params":` + wdDefaultParamsJSON + `,"numplayers":4,"slots":[1],"names":null,"join":true,"frontier":420}`},
		{(&InProgress{Params: p, Frontier: 7, Players: []LivePlayer{{1, "Indigo", true}, {3, "z", false}}, FreeSlots: []int{0, 2}}).Append(nil),
			`{"t":"inprogress","params":` + wdDefaultParamsJSON + `,"frontier":7,"players":[{"slot":1,"color":"Indigo","name":"Indigo","live":true},{"slot":3,"color":"Red","name":"z","live":false}],"freeSlots":[0,2]}`},
		{(&Full{Reason: ReasonLobbyFull}).Append(nil), `{"t":"full","reason":"lobby full"}`},
		{(&Pong{}).Append(nil), `{"t":"pong"}`},
		{(&Pong{T0: []byte("12.5")}).Append(nil), `{"t":"pong","t0":12.5}`},
	}
	for _, c := range cases {
		if string(c.got) != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
		if !json.Valid(c.got) {
			t.Errorf("not JSON: %s", c.got)
		}
	}
}

func wdParseReq(t *testing.T, s string) LobbyRequest {
	t.Helper()
	r, err := ParseLobbyRequest([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return r
}

func TestLobbyRequestParse(t *testing.T) {
	for _, bad := range []string{"", "{", "null", "{t:'ping'}", `{"t":"ping"} x`} {
		if _, err := ParseLobbyRequest([]byte(bad)); !errors.Is(err, ErrJSON) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := ParseLobbyRequest([]byte(`"` + strings.Repeat("a", 1100) + `"`)); !errors.Is(err, ErrTooLong) {
		t.Errorf("long: %v", err)
	}
	if r := wdParseReq(t, `[1,2]`); r.Type != "" || r.Has("t") {
		t.Errorf("array has a type: %+v", r)
	}
	if r := wdParseReq(t, `{"t":7}`); r.Type != "" {
		t.Errorf("numeric t: %q", r.Type)
	}
	if r := wdParseReq(t, `{"t":"a","t":"ping"}`); r.Type != "ping" {
		t.Errorf("duplicate key: last should win, got %q", r.Type)
	}
	if r := wdParseReq(t, `{"T":"ping"}`); r.Type != "" {
		t.Errorf("keys are case-sensitive, got %q", r.Type)
	}
	pongs := map[string]string{
		`{"t":"ping","t0":1234.5}`:                `1234.5`,
		`{"t":"ping","t0":1.0}`:                   `1`,
		`{"t":"ping","t0":1e21}`:                  `1e+21`,
		`{"t":"ping","t0":"\u0041<"}`:             `"A<"`,
		`{"t":"ping","t0":null}`:                  `null`,
		`{"t":"ping","t0":[1, {"b":1,"a":true}]}`: `[1,{"a":true,"b":1}]`,
	}
	for in, want := range pongs {
		r := wdParseReq(t, in)
		if got := string(r.T0JSON()); got != want {
			t.Errorf("%s: t0 %s, want %s", in, got, want)
		}
	}
	if r := wdParseReq(t, `{"t":"ping"}`); r.T0JSON() != nil {
		t.Errorf("absent t0 echoed")
	}
}

func TestNames(t *testing.T) {
	cases := map[string]string{
		`{"name":"  Bob!  "}`:           "Bob",
		`{"name":"<script>x</script>"}`: "scriptxscr",
		`{"name":"abcdefghi jkl"}`:      "abcdefghi ",
		`{"name":null}`:                 "",
		`{}`:                            "",
		`{"name":42}`:                   "42",
		`{"name":true}`:                 "true",
		`{"name":{"a":1}}`:              "object Obj",
		`{"name":["a","b"]}`:            "ab",
		`{"name":"Ünïcode_-ok"}`:        "ncode_-ok",
	}
	for in, want := range cases {
		r := wdParseReq(t, in)
		if got := r.Name(); got != want {
			t.Errorf("%s: name %q, want %q", in, got, want)
		}
	}
}

func TestSlots(t *testing.T) {
	choice := map[string]int{
		`{"slot":2}`: 2, `{"slot":"3"}`: 3, `{"slot":" 1 "}`: 1, `{"slot":null}`: 0,
		`{"slot":false}`: 0, `{"slot":[2]}`: 2, `{"slot":"0x2"}`: 2, `{"slot":2.0}`: 2,
		`{"slot":4}`: -1, `{"slot":-1}`: -1, `{"slot":1.5}`: -1, `{"slot":"x"}`: -1,
		`{}`: -1, `{"slot":{}}`: -1, `{"slot":[1,2]}`: -1, `{"slot":1e400}`: -1,
	}
	for in, want := range choice {
		r := wdParseReq(t, in)
		got, ok := r.SlotChoice()
		if ok != (want >= 0) || (ok && got != want) {
			t.Errorf("%s: SlotChoice %d %v, want %d", in, got, ok, want)
		}
	}
	join := map[string]int{`{"slot":2}`: 2, `{"slot":"2"}`: -1, `{"slot":3.0}`: 3, `{"slot":7}`: -1, `{}`: -1}
	for in, want := range join {
		r := wdParseReq(t, in)
		if got := r.JoinSlot(); got != want {
			t.Errorf("%s: JoinSlot %d, want %d", in, got, want)
		}
	}
}

func TestParamsClamp(t *testing.T) {
	cur := DefaultParams()
	cases := []struct {
		in   string
		want Params
	}{
		{`{"params":{"episode":2,"map":7,"skill":4,"mode":"deathmatch","fast":1,"timer":"20"}}`,
			Params{"doom.wad", 2, 7, 4, "deathmatch", false, true, false, 20}},
		{`{"params":{"wad":"../Evil WAD!.wad","episode":0,"map":99,"skill":-4,"mode":"ctf","timer":7}}`,
			Params{"..vil.wad", 1, 32, 1, "coop", false, false, false, 0}},
		{`{"params":{"episode":"x","map":2.7,"skill":0,"nomonsters":"false","respawn":[]}}`,
			Params{"doom.wad", 1, 2, 3, "coop", true, false, true, 0}},
		{`{"params":{"wad":null,"episode":1e9}}`, Params{"null", 9, 1, 3, "coop", false, false, false, 0}},
		{`{"params":"episode"}`, cur},
		{`{"params":[5]}`, cur},
		{`{}`, cur},
		{`{"params":{"unknown":1,"map":3}}`, Params{"doom.wad", 1, 3, 3, "coop", false, false, false, 0}},
	}
	for _, c := range cases {
		r := wdParseReq(t, c.in)
		if got := r.MergeParams(cur); got != c.want {
			t.Errorf("%s:\n got  %+v\n want %+v", c.in, got, c.want)
		}
	}
	// Merging is over the current params, not the defaults.
	cur.Map, cur.Mode = 5, "altdeath"
	if got := wdParseReq(t, `{"params":{"skill":2}}`).MergeParams(cur); got.Map != 5 || got.Mode != "altdeath" || got.Skill != 2 {
		t.Errorf("merge lost current params: %+v", got)
	}
}

func TestJSNumbers(t *testing.T) {
	str := map[float64]string{
		1: "1", -0.5: "-0.5", 1e21: "1e+21", 1e20: "100000000000000000000", 1.5e-7: "1.5e-7",
		0.000001: "0.000001", 123.456: "123.456", math.Inf(1): "Infinity", math.NaN(): "NaN",
	}
	for f, want := range str {
		if got := wdJSNumberString(f); got != want {
			t.Errorf("jsNumberString(%v) = %q, want %q", f, got, want)
		}
	}
	num := map[string]float64{"": 0, " 12 ": 12, "1e3": 1000, ".5": 0.5, "5.": 5, "0b101": 5, "0o17": 15,
		"-Infinity": math.Inf(-1), "1_000": math.NaN(), "0x": math.NaN(), "inf": math.NaN(), "-0x1": math.NaN()}
	for s, want := range num {
		got := wdJSStringToNumber(s)
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("ToNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzParseLobbyRequest(f *testing.F) {
	for _, s := range []string{
		`{"t":"ping","t0":1}`, `{"t":"name","name":"bob"}`, `{"t":"slot","slot":2}`,
		`{"t":"params","params":{"wad":"doom2.wad","episode":2,"map":3,"skill":4,"mode":"altdeath","timer":10}}`,
		`{"t":"start"}`, `{"t":"join","slot":1,"name":"x"}`, `[1,"a",null]`, `{"t":"ping","t0":{"a":[1e400]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseLobbyRequest(b)
		if err != nil {
			return
		}
		if t0 := r.T0JSON(); t0 != nil && !json.Valid(t0) {
			t.Fatalf("t0 echo is not JSON: %s", t0)
		}
		name := r.Name()
		if len(name) > 10 || CleanName(name) != strings.TrimRight(name, " ") && CleanName(name) != name {
			t.Fatalf("name %q not clean", name)
		}
		if s, ok := r.SlotChoice(); ok && (s < 0 || s > 3) {
			t.Fatalf("slot %d", s)
		}
		if s := r.JoinSlot(); s < -1 || s > 3 {
			t.Fatalf("join slot %d", s)
		}
		p := r.MergeParams(DefaultParams())
		if p.Episode < 1 || p.Episode > 9 || p.Map < 1 || p.Map > 32 || p.Skill < 1 || p.Skill > 5 {
			t.Fatalf("params out of range: %+v", p)
		}
		if !json.Valid(p.AppendJSON(nil)) || strings.Trim(p.Wad, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != "" {
			t.Fatalf("params %+v", p)
		}
	})
}
