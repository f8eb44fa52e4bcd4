package webdoom

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// FuzzCore feeds the core arbitrary sequences of socket events,
// messages and time steps, and checks it never panics and keeps its
// invariants: the connection cap holds, bundles are 38 bytes with
// consecutive tics, history matches what was sealed.
func FuzzCore(f *testing.F) {
	// A session: a seat, start, launch, a player, cmds, a spectator, a
	// drop-in, time passing, the player leaving.
	seed := []byte{0, 7, 0, 16}
	seed = append(seed, `{"t":"start"}   `...)
	seed = append(seed, 5, 255, 5, 100, 1, 0, 4, 1, 0, 4, 1, 1, 4, 1, 0, 2, 4, 1, 0, 1, 3, 4, 3, 0, 4, 1, 0, 5, 30, 4, 1, 0, 5, 255, 3, 1)
	f.Add(seed)
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, ops []byte) {
		cfg := DefaultConfig()
		cfg.MaxConns = 12
		c := NewCore(cfg, nil)
		now := time.Unix(1000, 0)
		var id ConnID
		lastTic := map[ConnID]int64{}
		check := func(acts []Action) {
			for _, a := range acts {
				switch a.Kind {
				case SendBinary:
					if len(a.Data) != wire.BundleSize {
						t.Fatalf("bundle of %d bytes", len(a.Data))
					}
					tic := int64(binary.LittleEndian.Uint32(a.Data))
					if prev, ok := lastTic[a.Conn]; ok && tic != prev+1 {
						t.Fatalf("conn %d: tic %d after %d", a.Conn, tic, prev)
					}
					lastTic[a.Conn] = tic
				case SendHistory:
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
		at := func(i int) byte {
			if i < len(ops) {
				return ops[i]
			}
			return 0
		}
		body := func(i, n int) []byte { return ops[min(i, len(ops)):min(i+n, len(ops))] }
		for i := 0; i < len(ops); {
			op, a, b := ops[i]%8, at(i+1), at(i+2)
			target := ConnID(a%16) + 1
			switch op {
			case 0:
				id++
				check(c.OpenLobby(id, now))
				i++
			case 1:
				id++
				check(c.OpenGame(id, "slot="+string(rune('0'+a%6)), now))
				i += 2
			case 2:
				id++
				check(c.OpenSpectator(id, now))
				i++
			case 3:
				check(c.Closed(target, now))
				i += 2
			case 4:
				var tic uint32
				if s := c.session; s != nil {
					tic = s.next + uint32(b%4)
				}
				check(c.GameMessage(target, wire.Cmd{Tic: tic, Cmd: wire.TicCmd{b}}.Append(nil), now))
				i += 3
			case 5:
				now = now.Add(time.Duration(a) * 10 * time.Millisecond)
				check(c.Advance(now))
				i += 2
			case 6:
				m := body(i+3, int(b%32))
				check(c.GameMessage(target, m, now))
				i += 3 + len(m)
			case 7:
				m := body(i+3, int(b%64))
				check(c.LobbyMessage(target, m, now))
				i += 3 + len(m)
			}
		}
	})
}
