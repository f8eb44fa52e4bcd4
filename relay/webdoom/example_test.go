package webdoom_test

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// The core is driven by events and the time now; it answers with actions.
// Here one player starts a game, connects its game socket and sends its
// cmd for tic 0, which seals at once.
func ExampleCore() {
	core := webdoom.NewCore(webdoom.DefaultConfig(), nil)
	now := time.Unix(0, 0)
	core.OpenLobby(1, now)
	core.LobbyMessage(1, []byte(`{"t":"start"}`), now)
	now = now.Add(3 * time.Second) // countdown 3, 2, 1, then launch
	for _, a := range core.Advance(now) {
		fmt.Printf("to %d: %s\n", a.Conn, a.Data)
	}
	core.OpenGame(2, "slot=0", now)
	cmd := wire.Cmd{Tic: 0, Cmd: wire.NewTicCmd(25, 0, 0, 0, 0, 0)}
	for _, a := range core.GameMessage(2, cmd.Append(nil), now) {
		b, _ := wire.DecodeBundleMessage(a.Data)
		fmt.Printf("to %d: tic %d in-game %04b fabricated %04b forward %d\n", a.Conn, b.Tic, b.InGame, b.Fabricated, b.Cmds[0].ForwardMove())
	}
	// Output:
	// to 1: {"t":"countdown","n":2}
	// to 1: {"t":"countdown","n":1}
	// to 1: {"t":"launch","params":{"wad":"doom.wad","episode":1,"map":1,"skill":3,"mode":"coop","nomonsters":false,"fast":false,"respawn":false,"timer":0},"numplayers":4,"slots":[0],"names":["Green",null,null,null]}
	// to 2: tic 0 in-game 0001 fabricated 1110 forward 25
}
