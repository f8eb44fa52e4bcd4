package codec

import "testing"

func TestWelcome(t *testing.T) {
	for _, m := range []Welcome{
		{Version: ProtocolVersion, Player: 3, Tag: 0x9c, Cookie: [16]byte{5, 15: 1}, Tick: 123456,
			HashBits: 8, TickRate: 60, Transfer: 1, Roster: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9},
			Game: 0x0123456789abcdef, Settings: []byte{1, 0x80, 0x02, 60}},
		{Version: ProtocolVersion, Player: 63, Tag: 1, Tick: 0xFFFFFFFF, HashBits: 64, TickRate: 1 << 20, Transfer: 1 << 31},
		{Version: ProtocolVersion, Player: SpectatorID, Tag: 2, Tick: 7, HashBits: 16, TickRate: 60, Transfer: 3},
	} {
		b := checkMessage(t, &m, ParseWelcome)
		bad := append([]byte{}, b...)
		bad[7] = MaxPlayers
		mustFail(t, "player", bad, ParseWelcome, ErrPlayer)
		bad = append([]byte{}, b...)
		bad[8] = 0
		mustFail(t, "tag", bad, ParseWelcome, ErrMalformed)
		bad = append([]byte{}, b...)
		bad[29] = 65
		mustFail(t, "hash bits", bad, ParseWelcome, ErrMalformed)
	}
	// Settings over MaxSettings bytes are refused before they are read.
	m := Welcome{Player: 1, Tag: 1, TickRate: 60, Settings: make([]byte, MaxSettings)}
	b := m.Append(nil)
	if _, _, err := ParseWelcome(b); err != nil {
		t.Fatalf("%d bytes of settings: %v", MaxSettings, err)
	}
	m.Settings = make([]byte, MaxSettings+1)
	mustFail(t, "settings", m.Append(nil), ParseWelcome, ErrMalformed)
}
