package webdoom

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// Bare is the bare relay the benchmark measures rewind's beside: the least
// work a seal can be, over the same WebSocket library and framing
// (coder/websocket, no compression). /ws/game?slot=N takes 12-byte cmds;
// once Players game sockets are open, tic T is sealed the moment each of
// them has sent its cmd for T, and the 38-byte bundle (in-game mask = the
// open slots, fabricated mask = the others) is written to every game
// socket by the reader that completed it, under the relay's one lock. No
// lobby state, windows, caps, history, stats, logs or spectators:
// /ws/lobby answers any message containing "start" with a launch, so
// that a WebDoom client's opening works on both relays.
type Bare struct {
	// Players is how many game sockets play (1..4).
	Players int

	mu    sync.Mutex
	conns [wire.Slots]*websocket.Conn
	open  int
	next  uint32
	cmds  [wire.Slots]map[uint32]wire.TicCmd
}

// Serve serves the bare relay on ln until ctx ends.
func (b *Bare) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: b, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ServeHTTP accepts /ws/lobby and /ws/game?slot=N.
func (b *Bare) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	slot, err := strconv.Atoi(r.URL.Query().Get("slot"))
	game := r.URL.Path == "/ws/game"
	if r.URL.Path != "/ws/lobby" && (!game || err != nil || slot < 0 || slot >= wire.Slots) {
		http.NotFound(w, r)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true, CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return
	}
	defer c.CloseNow()
	if !game {
		b.lobby(r.Context(), c)
		return
	}
	b.mu.Lock()
	if b.conns[slot] != nil {
		b.mu.Unlock()
		return
	}
	b.conns[slot], b.cmds[slot] = c, map[uint32]wire.TicCmd{}
	b.open++
	b.mu.Unlock()
	defer b.left(slot)
	for {
		_, msg, err := c.Read(r.Context())
		if err != nil {
			return
		}
		if m, err := wire.DecodeCmdMessage(msg); err == nil {
			b.cmd(r.Context(), slot, m)
		}
	}
}

// left forgets a closed game socket; the last one's leaving starts the
// next game at tic 0.
func (b *Bare) left(slot int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.conns[slot], b.cmds[slot] = nil, nil
	if b.open--; b.open == 0 {
		b.next = 0
	}
}

// lobby answers a start with a launch.
func (b *Bare) lobby(ctx context.Context, c *websocket.Conn) {
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if req, err := wire.ParseLobbyRequest(msg); err == nil && req.Type == "start" {
			if c.Write(ctx, websocket.MessageText, []byte(`{"t":"launch","numplayers":4}`)) != nil {
				return
			}
		}
	}
}

// cmd stores a cmd and seals while every open slot has its cmd for the
// next tic, writing each bundle to every game socket.
func (b *Bare) cmd(ctx context.Context, slot int, m wire.Cmd) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.Tic < b.next {
		return
	}
	b.cmds[slot][m.Tic] = m.Cmd
	for b.open >= b.Players {
		var bundle [wire.BundleSize]byte
		binary.LittleEndian.PutUint32(bundle[:], b.next)
		for i, c := range b.conns {
			if c == nil {
				bundle[5] |= 1 << i
				continue
			}
			cmd, ok := b.cmds[i][b.next]
			if !ok {
				return
			}
			bundle[4] |= 1 << i
			copy(bundle[6+i*wire.TicCmdSize:], cmd[:])
		}
		for i := range b.cmds {
			delete(b.cmds[i], b.next)
		}
		b.next++
		for _, c := range b.conns {
			if c != nil {
				c.Write(ctx, websocket.MessageBinary, bundle[:])
			}
		}
	}
}
