package main

import (
	"io"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/transport/udp"
)

// TestServeHandshakeFlags: serve's --handshake-rate, --handshake-burst,
// --handshake-total-rate and --handshake-total-burst default to
// udp.Config's defaults and reach the UDP configuration every serve mode
// hosts with; a zero rate or a burst under 1 is a usage error of one line.
func TestServeHandshakeFlags(t *testing.T) {
	o, err := parseServe(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	def := udp.Config{}.WithDefaults()
	got := o.ucfg.WithDefaults()
	if got.HandshakeRate != def.HandshakeRate || got.HandshakeBurst != def.HandshakeBurst ||
		got.HandshakeTotalRate != def.HandshakeTotalRate || got.HandshakeTotalBurst != def.HandshakeTotalBurst {
		t.Errorf("defaults %+v, want udp.Config's %+v", got, def)
	}
	o, err = parseServe([]string{"--handshake-rate", "5", "--handshake-burst", "7", "--handshake-total-rate", "-1", "--handshake-total-burst", "9"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c := o.ucfg; c.HandshakeRate != 5 || c.HandshakeBurst != 7 || c.HandshakeTotalRate != -1 || c.HandshakeTotalBurst != 9 {
		t.Errorf("set: %+v", c)
	}
	for _, args := range [][]string{
		{"serve", "--handshake-rate", "0"},
		{"serve", "--handshake-total-rate", "0"},
		{"serve", "--handshake-total-rate", "NaN"},
		{"serve", "--handshake-burst", "0"},
		{"serve", "--handshake-total-burst", "-3"},
	} {
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, "--handshake") || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}
