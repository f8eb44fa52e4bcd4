package server

import (
	"strings"
	"testing"
)

// TestCleanText: names and chat lines come out NFC; bidi overrides,
// zero-width characters, control characters, stacks of combining marks,
// blank and reserved names are refused (issue 30 item 12); ordinary text
// of many scripts passes unchanged.
func TestCleanText(t *testing.T) {
	for _, tc := range []struct {
		in     string
		name   bool
		want   string // the text out, when not refused
		reason string // the refusal, "" when it passes
	}{
		{"hello", false, "hello", ""},
		{"Grüße, 世界! ça va? Việt", false, "Grüße, 世界! ça va? Việt", ""},
		{"e\u0301", false, "\u00e9", ""},                                      // NFC composes
		{"<script>alert(1)</script>", false, "<script>alert(1)</script>", ""}, // plain text: the view shows it as text
		{"abc\u202Egpj.exe", false, "", "bidi or invisible characters"},
		{"\u2066x\u2069", false, "", "bidi or invisible characters"},
		{"a\u200Bb", false, "", "bidi or invisible characters"},
		{"\uFEFFhi", false, "", "bidi or invisible characters"},
		{"a\u200Db", false, "", "bidi or invisible characters"},
		{"tab\there", false, "", "control characters"},
		{"a" + strings.Repeat("\u0301", 4), false, "", ""},
		{"a" + strings.Repeat("\u0300\u0301", 3), false, "", "too many combining marks"},
		{"a" + strings.Repeat("\u0301", 99), false, "", "too many combining marks"},
		{"server", true, "", "name reserved"},
		{" Server ", true, "", "name reserved"},
		{"HOST", true, "", "name reserved"},
		{"server", false, "server", ""}, // a chat line may say it
		{"serverfan", true, "serverfan", ""},
		{"   ", true, "", "name is blank"},
		{"\u200B", true, "", "bidi or invisible characters"},
		{"Zoë", true, "Zoë", ""},
	} {
		got, reason := cleanText([]byte(tc.in), tc.name)
		if reason != tc.reason {
			t.Errorf("cleanText(%+q, name=%v): refused %q, want %q", tc.in, tc.name, reason, tc.reason)
			continue
		}
		if reason == "" && tc.want != "" && string(got) != tc.want {
			t.Errorf("cleanText(%+q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}
