package wire

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// WebDoom's server is JavaScript: it reads lobby fields with JS coercions
// (+x, String(x), !!x). These helpers apply the same rules to a value
// decoded from JSON (nil, bool, json.Number, float64, string, []any,
// map[string]any) so that odd input is read as WebDoom reads it.

// wdJSNumber is JavaScript's unary plus (ToNumber) of a JSON value.
func wdJSNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64) // ±Inf on overflow, as JS
		return f
	case string:
		return wdJSStringToNumber(x)
	case []any:
		return wdJSStringToNumber(wdJSString(x))
	default: // objects
		return math.NaN()
	}
}

var wdJSDecimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

func wdJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// wdJSStringToNumber is ToNumber of a string: trimmed, "" is 0, decimal
// literals, Infinity, and 0x/0o/0b integers; anything else is NaN.
func wdJSStringToNumber(s string) float64 {
	s = strings.TrimFunc(s, wdJSSpace)
	if s == "" {
		return 0
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, ok := new(big.Int).SetString(s[2:], base)
			if !ok || strings.ContainsAny(s[2:], "_+-") {
				return math.NaN()
			}
			f, _ := new(big.Float).SetInt(n).Float64()
			return f
		}
	}
	if !wdJSDecimal.MatchString(s) {
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// wdJSString is JavaScript's String(x) of a JSON value (nil is "null").
func wdJSString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return wdJSNumberString(x)
	case json.Number:
		return wdJSNumberString(wdJSNumber(x))
	case string:
		return x
	case []any:
		var b strings.Builder
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if e != nil {
				b.WriteString(wdJSString(e))
			}
		}
		return b.String()
	default:
		return "[object Object]"
	}
}

// wdJSTruthy is JavaScript's !!x of a JSON value.
func wdJSTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case json.Number:
		f := wdJSNumber(x)
		return f != 0 && !math.IsNaN(f)
	case string:
		return x != ""
	default:
		return true
	}
}

// wdJSNumberString formats f as JavaScript's Number.prototype.toString does.
func wdJSNumberString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	d := digits[:1]
	if k > 1 {
		d += "." + digits[1:]
	}
	return sign + d + "e" + es + strconv.Itoa(wdAbs(n-1))
}

func wdAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// wdAppendJSString appends s quoted as JSON.stringify does: only ", \ and
// control characters are escaped (and lone surrogates, which Go strings
// cannot hold; invalid UTF-8 becomes U+FFFD).
func wdAppendJSString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&15])
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

// wdAppendJSValue appends v as JSON.stringify writes it: numbers in JS form,
// strings JS-escaped, arrays in order, object keys sorted (JS would keep
// insertion order with integer-like keys first; Go's decoder forgets it).
func wdAppendJSValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case float64, json.Number:
		f := wdJSNumber(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return append(b, "null"...)
		}
		return append(b, wdJSNumberString(f)...)
	case string:
		return wdAppendJSString(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = wdAppendJSValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = wdAppendJSString(b, k)
			b = append(b, ':')
			b = wdAppendJSValue(b, x[k])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// JSNumber is JavaScript's Number(s) of a string, as WebDoom's
// server reads numbers from URLs and JSON: trimmed, "" is 0, decimal
// literals, Infinity, 0x/0o/0b integers; anything else is NaN.
func JSNumber(s string) float64 { return wdJSStringToNumber(s) }

// JSNumberString formats f as JavaScript's String(f) does.
func JSNumberString(f float64) string { return wdJSNumberString(f) }

// JSTruthy is JavaScript's !!x of a value decoded from JSON (nil, bool,
// float64, json.Number, string, []any, map[string]any), as WebDoom's
// server tests a manifest entry's flags.
func JSTruthy(v any) bool { return wdJSTruthy(v) }
