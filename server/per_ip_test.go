package server

import (
	"testing"

	"github.com/rewindnet/rewind/transport"
)

func TestAddrIP(t *testing.T) {
	for a, want := range map[transport.Addr]string{
		"udp:127.0.0.1:4000#7":     "127.0.0.1",
		"1/udp:10.0.0.2:9#1":       "10.0.0.2",
		"udp:[2001:db8::1]:80#3":   "2001:db8::1",
		"udp:[::ffff:1.2.3.4]:1#1": "1.2.3.4",
		"0/webrtc:p3":              "",
		"sim:3":                    "",
		"udp:nonsense":             "",
		"json:10.1.2.3#4":          "10.1.2.3",
		"2/json:::1#9":             "::1",
		"json-3":                   "",
		"sim:json:10.9.8.7#2":      "10.9.8.7",
		"1/sim:json:::1#5":         "::1",
		"sim:json-3":               "",
	} {
		ip, ok := addrIP(a)
		if got := ip.String(); ok != (want != "") || ok && got != want {
			t.Errorf("%q: %v %v, want %q", a, got, ok, want)
		}
	}
}

func TestMaxPlayersPerIP(t *testing.T) {
	s := &Server[int]{cfg: Config{MaxPlayersPerIP: 2}, players: make([]*player, 4)}
	s.players[0] = &player{addr: "udp:127.0.0.1:1#1"}
	if s.fullForIP("udp:127.0.0.1:2#2") {
		t.Fatal("one player from the address: full")
	}
	s.players[2] = &player{addr: "0/udp:127.0.0.1:3#3"}
	if !s.fullForIP("udp:127.0.0.1:4#4") || s.fullForIP("udp:127.0.0.2:4#4") || s.fullForIP("webrtc:x") {
		t.Fatal("cap of 2 per IP not applied to that IP alone")
	}
	s.cfg.MaxPlayersPerIP = 0
	if s.fullForIP("udp:127.0.0.1:4#4") {
		t.Fatal("the default caps")
	}
}
