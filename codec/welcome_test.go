package codec

import "testing"

func TestWelcome(t *testing.T) {
	for _, m := range []Welcome{
		{Version: ProtocolVersion, Player: 3, Tag: 0x9c, Cookie: [16]byte{5, 15: 1}, Tick: 123456,
			HashBits: 8, TickRate: 60, Transfer: 1, Roster: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}},
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
}
