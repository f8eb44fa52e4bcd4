package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestBenchPrivate runs a short cards match and checks the contract of
// the last line: the keys outside checks read, nothing leaked, every
// verified hash equal, repairs counted, the public game's leaks found.
func TestBenchPrivate(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runBenchPrivate([]string{"--players", "3", "--seconds", "5", "--loss", "0.1"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	kv, last := lastKeyValues(t, out.String())
	if !strings.HasPrefix(strings.SplitN(last, " ", 2)[0], "players=") {
		t.Fatalf("last line %q", last)
	}
	num := func(k string) float64 {
		f, err := strconv.ParseFloat(kv[k], 64)
		if err != nil {
			t.Fatalf("%s=%q in %q", k, kv[k], last)
		}
		return f
	}
	if num("leaked_bytes") != 0 || kv["verified_equal"] != "true" || num("hidden_read_repairs") <= 0 ||
		num("bytes_per_client_per_s") <= 0 || num("public_leaked_bytes") <= 0 {
		t.Fatalf("last line %q", last)
	}
}
