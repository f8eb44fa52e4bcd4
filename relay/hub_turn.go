package relay

import (
	"strconv"
	"strings"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// (turn.Server.SetLive takes liveMember: turn/renew.go says why.)

// liveMember reports whether the TURN user a credential was handed to is
// still a member of a live room here: "CODE-…" a live room's, "server-ID"
// a connected match server.
func (h *roomHub) liveMember(user string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id, ok := strings.CutPrefix(user, "server-"); ok {
		n, err := strconv.ParseUint(id, 10, 64)
		c := h.conns[n]
		return err == nil && c != nil && c.role == roleServer && !c.killed
	}
	code, _, ok := strings.Cut(user, "-")
	return ok && h.rooms[code] != nil
}

// renewICE hands every host and match server fresh TURN credentials at
// half of their life. h.mu is held.
func (h *roomHub) renewICE(now time.Time) {
	if h.cfg.TURN == nil {
		return
	}
	every := h.cfg.TURN.CredentialTTL() / 2
	for _, c := range h.conns {
		var user string
		switch {
		case c.killed:
			continue
		case c.role == roleHost && c.room != nil:
			user = c.room.code + "-host"
		case c.role == roleServer:
			user = "server-" + strconv.FormatUint(c.id, 10)
		default:
			continue
		}
		if c.iceAt.IsZero() {
			c.iceAt = now // handed in its hosted or serving, within a tick
			continue
		}
		if now.Sub(c.iceAt) >= every {
			c.iceAt = now
			h.send(c, &roomproto.Msg{Type: roomproto.MsgICE, ICE: h.ice(user, now)})
		}
	}
}
