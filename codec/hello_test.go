package codec

import "testing"

func TestHello(t *testing.T) {
	for _, m := range []Hello{
		{Version: ProtocolVersion, Game: 0x0123456789abcdef},
		{Version: ProtocolVersion, Game: 1, HasCookie: true, Cookie: [16]byte{1, 2, 3, 15: 9}},
		{Version: ProtocolVersion, Game: 2, HasRoom: true, Room: [6]byte{'K', '3', 'F', '9', 'Q', 'X'}},
		{Version: ProtocolVersion, Game: 3, HasCookie: true, Cookie: [16]byte{7}, HasRoom: true, Room: [6]byte{'A', 'B', 'C', 'D', 'E', 'F'}},
		{Version: ProtocolVersion, Game: 4, Spectator: true, Delay: 3000},
		{Version: ProtocolVersion, Game: 5, HasRoom: true, Room: [6]byte{'K', '3', 'F', '9', 'Q', 'X'}, Spectator: true},
		{Version: ProtocolVersion, Game: 6, HostSettings: true},
		{Version: ProtocolVersion, Game: 7, HostSettings: true, HasCookie: true, Cookie: [16]byte{4}},
		{Version: ProtocolVersion, Game: 8, HostSettings: true, HasCookie: true, Cookie: [16]byte{5}, HasRoom: true, Room: [6]byte{'Z', 'Z', '2', '3', '4', '5'}, Spectator: true, Delay: 7},
	} {
		b := checkMessage(t, &m, ParseHello)
		bad := append([]byte{}, b...)
		bad[1] = 'X'
		mustFail(t, "magic", bad, ParseHello, ErrBadMagic)
		bad = append([]byte{}, b...)
		bad[15] |= 16
		mustFail(t, "flags", bad, ParseHello, ErrMalformed)
		if m.HasRoom && !m.Spectator {
			bad = append([]byte{}, b...)
			bad[len(bad)-1] = ' '
			mustFail(t, "room byte", bad, ParseHello, ErrMalformed)
		}
		bad = append([]byte{}, b...)
		bad[4] = byte(TypeWelcome)
		mustFail(t, "type", bad, ParseHello, ErrWrongType)
	}
	// Another version parses (the server answers it with a Refuse).
	b := (&Hello{Game: 7}).Append(nil)
	b[5] = 9
	m, _, err := ParseHello(b)
	if err != nil || m.Version != 9 {
		t.Fatalf("version 9 hello: %+v, %v", m, err)
	}
}
