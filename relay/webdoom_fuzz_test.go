package relay

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
)

// FuzzWebDoomCore feeds the core arbitrary sequences of socket events,
// messages and time steps, and checks it never panics and keeps its
// invariants: the connection cap holds, bundles are 38 bytes with
// consecutive tics, history matches what was sealed.
func FuzzWebDoomCore(f *testing.F) {
	start := append([]byte{0, 0, 0, 0, 1, 0, 7}, []byte(`{"t":"start"}`)...)
	f.Add(append(start, 5, 100, 2, 0, 3, 1, 0, 4, 0))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, ops []byte) {
		cfg := DefaultWebDoomConfig()
		cfg.MaxConns = 12
		c := NewWebDoomCore(cfg, nil)
		now := time.Unix(1000, 0)
		var id WebDoomConnID
		lastTic := map[WebDoomConnID]int64{}
		check := func(acts []WebDoomAction) {
			for _, a := range acts {
				switch a.Kind {
				case WebDoomSendBinary:
					if len(a.Data) != codec.WebDoomBundleSize {
						t.Fatalf("bundle of %d bytes", len(a.Data))
					}
					tic := int64(binary.LittleEndian.Uint32(a.Data))
					if prev, ok := lastTic[a.Conn]; ok && tic != prev+1 {
						t.Fatalf("conn %d: tic %d after %d", a.Conn, tic, prev)
					}
					lastTic[a.Conn] = tic
				case WebDoomSendHistory:
					for i := 0; i < a.History.Len(); i++ {
						if binary.LittleEndian.Uint32(a.History.Bundle(i)) != uint32(i) {
							t.Fatalf("history bundle %d has the wrong tic", i)
						}
					}
					lastTic[a.Conn] = int64(a.History.Len()) - 1
				}
			}
			if len(c.conns) > cfg.MaxConns {
				t.Fatalf("%d conns", len(c.conns))
			}
		}
		for i := 0; i < len(ops); i++ {
			op, arg := ops[i]%8, byte(0)
			if i+1 < len(ops) {
				arg = ops[i+1]
			}
			target := WebDoomConnID(arg%16) + 1
			switch op {
			case 0:
				id++
				check(c.OpenLobby(id, now))
			case 1:
				id++
				check(c.OpenGame(id, "slot="+string(rune('0'+arg%6)), now))
			case 2:
				id++
				check(c.OpenSpectator(id, now))
			case 3:
				check(c.Closed(target, now))
				i++
			case 4:
				var tic uint32
				if s := c.session; s != nil {
					tic = s.next + uint32(arg%4)
				}
				check(c.GameMessage(target, codec.WebDoomCmd{Tic: tic, Cmd: codec.WebDoomTicCmd{arg}}.Append(nil), now))
				i++
			case 5:
				now = now.Add(time.Duration(arg) * 50 * time.Millisecond)
				check(c.Advance(now))
				i++
			case 6:
				n := min(int(arg%32), len(ops)-i-2)
				if n > 0 {
					check(c.GameMessage(target, ops[i+2:i+2+n], now))
					check(c.LobbyMessage(target, ops[i+2:i+2+n], now))
				}
				i += 1 + max(n, 0)
			case 7:
				n := min(int(arg%32), len(ops)-i-2)
				if n >= 0 {
					check(c.LobbyMessage(target, ops[i+2:i+2+n], now))
				}
				i += 1 + max(n, 0)
			}
		}
	})
}
