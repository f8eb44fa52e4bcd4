package wire

import (
	"math"
	"strconv"
	"strings"
)

// Colors are the slot colors, DOOM's player colors: slot N is
// Colors[N]. The lobby names a slot's color in every message.
var Colors = [Slots]string{"Green", "Indigo", "Brown", "Red"}

// Color returns the color name of slot, or "" outside 0..3.
func Color(slot int) string {
	if slot < 0 || slot >= Slots {
		return ""
	}
	return Colors[slot]
}

// Params are a WebDoom game's settings as the lobby holds them and
// every launch message carries them. JSON field order is WebDoom's.
type Params struct {
	Wad        string // WAD file name, only [a-z0-9_.-]
	Episode    int    // 1..9
	Map        int    // 1..32
	Skill      int    // 1..5
	Mode       string // "coop", "deathmatch" or "altdeath"
	NoMonsters bool
	Fast       bool
	Respawn    bool
	Timer      int // minutes: 0, 5, 10, 15, 20 or 30
}

// DefaultParams returns WebDoom's lobby defaults: doom.wad E1M1,
// skill 3, co-op, no options, no timer.
func DefaultParams() Params {
	return Params{Wad: "doom.wad", Episode: 1, Map: 1, Skill: 3, Mode: "coop"}
}

// AppendJSON appends p as the JSON object WebDoom's client reads:
// {"wad":…,"episode":…,"map":…,"skill":…,"mode":…,"nomonsters":…,
// "fast":…,"respawn":…,"timer":…}.
func (p *Params) AppendJSON(b []byte) []byte {
	b = append(b, `{"wad":`...)
	b = wdAppendJSString(b, p.Wad)
	b = append(b, `,"episode":`...)
	b = strconv.AppendInt(b, int64(p.Episode), 10)
	b = append(b, `,"map":`...)
	b = strconv.AppendInt(b, int64(p.Map), 10)
	b = append(b, `,"skill":`...)
	b = strconv.AppendInt(b, int64(p.Skill), 10)
	b = append(b, `,"mode":`...)
	b = wdAppendJSString(b, p.Mode)
	b = append(b, `,"nomonsters":`...)
	b = strconv.AppendBool(b, p.NoMonsters)
	b = append(b, `,"fast":`...)
	b = strconv.AppendBool(b, p.Fast)
	b = append(b, `,"respawn":`...)
	b = strconv.AppendBool(b, p.Respawn)
	b = append(b, `,"timer":`...)
	b = strconv.AppendInt(b, int64(p.Timer), 10)
	return append(b, '}')
}

// jsValues returns p's fields as the JSON values WebDoom's merge starts from.
func (p *Params) jsValues() map[string]any {
	return map[string]any{
		"wad": p.Wad, "episode": float64(p.Episode), "map": float64(p.Map),
		"skill": float64(p.Skill), "mode": p.Mode, "nomonsters": p.NoMonsters,
		"fast": p.Fast, "respawn": p.Respawn, "timer": float64(p.Timer),
	}
}

// mergeParams merges a client's params value over cur and clamps the
// result as WebDoom does ({...params, ...m.params} then per-field rules).
// Only a JSON object contributes fields. Where WebDoom would keep a
// fraction (episode 2.5) rewind rounds down: the game needs integers.
func mergeParams(cur Params, v any) Params {
	m := cur.jsValues()
	if obj, ok := v.(map[string]any); ok {
		for k, x := range obj {
			if _, known := m[k]; known {
				m[k] = x
			}
		}
	}
	var p Params
	p.Wad = wdKeepRunes(wdJSString(m["wad"]), func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
	})
	p.Episode = wdClampOr(m["episode"], 1, 9, 1)
	p.Map = wdClampOr(m["map"], 1, 32, 1)
	p.Skill = wdClampOr(m["skill"], 1, 5, 3)
	p.Mode = "coop"
	if s, ok := m["mode"].(string); ok && (s == "coop" || s == "deathmatch" || s == "altdeath") {
		p.Mode = s
	}
	p.NoMonsters = wdJSTruthy(m["nomonsters"])
	p.Fast = wdJSTruthy(m["fast"])
	p.Respawn = wdJSTruthy(m["respawn"])
	switch t := wdJSNumber(m["timer"]); t {
	case 0, 5, 10, 15, 20, 30:
		p.Timer = int(t)
	}
	return p
}

// wdClampOr is Math.max(lo, Math.min(hi, +v || dflt)), rounded down.
func wdClampOr(v any, lo, hi, dflt int) int {
	f := wdJSNumber(v)
	if f == 0 || math.IsNaN(f) {
		f = float64(dflt)
	}
	f = math.Max(float64(lo), math.Min(float64(hi), f))
	return int(math.Floor(f))
}

func wdKeepRunes(s string, keep func(rune) bool) string {
	return strings.Map(func(r rune) rune {
		if keep(r) {
			return r
		}
		return -1
	}, s)
}

// CleanName cleans a player name as WebDoom does: only
// [A-Za-z0-9 _-] kept, trimmed, at most 10 characters. An empty result
// means "use the slot's color name".
func CleanName(s string) string {
	s = wdKeepRunes(s, func(r rune) bool {
		return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == ' ' || r == '_' || r == '-'
	})
	s = strings.Trim(s, " ")
	if len(s) > 10 {
		s = s[:10]
	}
	return s
}
