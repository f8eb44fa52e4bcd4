package codec

import "testing"

func TestHello(t *testing.T) {
	for _, m := range []Hello{
		{Version: ProtocolVersion, Game: 0x0123456789abcdef},
		{Version: ProtocolVersion, Game: 1, HasCookie: true, Cookie: [16]byte{1, 2, 3, 15: 9}},
		{Version: ProtocolVersion, Game: 2, HasRoom: true, Room: [MaxRoomCodeSize]byte{'K', '3', 'F', '9', 'Q', 'X'}},
		{Version: ProtocolVersion, Game: 3, HasCookie: true, Cookie: [16]byte{7}, HasRoom: true, Room: [MaxRoomCodeSize]byte{'A', 'B', 'C', 'D', 'E', 'F'}},
		{Version: ProtocolVersion, Game: 4, Spectator: true, Delay: 3000},
		{Version: ProtocolVersion, Game: 5, HasRoom: true, Room: [MaxRoomCodeSize]byte{'K', '3', 'F', '9', 'Q', 'X'}, Spectator: true},
		{Version: ProtocolVersion, Game: 6, HostSettings: true},
		{Version: ProtocolVersion, Game: 7, HostSettings: true, HasCookie: true, Cookie: [16]byte{4}},
		{Version: ProtocolVersion, Game: 8, HostSettings: true, HasCookie: true, Cookie: [16]byte{5}, HasRoom: true, Room: [MaxRoomCodeSize]byte{'Z', 'Z', '2', '3', '4', '5'}, Spectator: true, Delay: 7},
		{Version: ProtocolVersion, Game: 9, HasRoom: true, RoomLen: 7, Room: [MaxRoomCodeSize]byte{'K', '3', 'F', '9', 'Q', 'X', 'Z'}},
		{Version: ProtocolVersion, Game: 10, HasCookie: true, Cookie: [16]byte{6}, HasRoom: true, RoomLen: 12, Room: [MaxRoomCodeSize]byte{'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K', 'L', 'M'}, Spectator: true, Delay: 1},
	} {
		b := checkMessage(t, &m, ParseHello)
		bad := append([]byte{}, b...)
		bad[1] = 'X'
		mustFail(t, "magic", bad, ParseHello, ErrBadMagic)
		bad = append([]byte{}, b...)
		bad[15] |= 32
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
	// The short form and the long one never together; a long one of 6 or
	// of more than 12 bytes is malformed; SetRoom takes 6 to 12 printable
	// bytes and a code of 6 goes in the short form old servers read.
	var long Hello
	if !long.SetRoom("K3F9QXZ") || string(long.RoomCode()) != "K3F9QXZ" {
		t.Fatalf("SetRoom: %+v", long)
	}
	b := long.Append(nil)
	if b[15] != 16 || b[16] != 7 {
		t.Fatalf("a 7-character code encoded with flags %#x, length %d", b[15], b[16])
	}
	bad := append([]byte{}, b...)
	bad[15] |= 2
	mustFail(t, "both room flags", bad, ParseHello, ErrMalformed)
	for _, n := range []byte{0, 6, 13, 255} {
		bad = append([]byte{}, b...)
		bad[16] = n
		if _, _, err := ParseHello(bad); err == nil {
			t.Fatalf("a long room code of %d bytes parsed", n)
		}
	}
	var short Hello
	if !short.SetRoom("ABCDEF") || short.Append(nil)[15] != 2 {
		t.Fatal("a 6-character code not in the short form")
	}
	for _, code := range []string{"", "ABCDE", "ABCDEFGHJKLMN", "ABC DEF"} {
		if (&Hello{}).SetRoom(code) {
			t.Fatalf("SetRoom took %q", code)
		}
	}
	// Another version parses (the server answers it with a Refuse).
	b = (&Hello{Game: 7}).Append(nil)
	b[5] = 9
	m, _, err := ParseHello(b)
	if err != nil || m.Version != 9 {
		t.Fatalf("version 9 hello: %+v, %v", m, err)
	}
}
