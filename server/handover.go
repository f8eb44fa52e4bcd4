package server

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

// Room is the room a match is hosted in, for the handover data a server
// with Config.HostMigration sends its players.
type Room struct {
	// Code is the room's code, Key its key (as the relay gave them).
	Code, Key string
}

// The handover's schedule: after a change it goes with every round of
// ticks for handoverBurst, then once every handoverEvery.
const (
	handoverBurst = time.Second
	handoverEvery = time.Second
)

// handoverState is what the server keeps of the handover data: the last
// encoding (tag zero), its version, and when it changed and was last sent.
type handoverState struct {
	own       game.PlayerID
	hasOwn    bool
	version   uint32
	enc       []byte // the last encoding, tag 0
	scratch   []byte
	msg       codec.Handover
	changedAt time.Time
	sentAt    time.Time

	// Safe from any goroutine (SetRoomKey, Departures): the room's key
	// as the host rotated it (keySet: one was set), and the welcomed
	// players who left.
	keyMu    sync.Mutex
	key      string
	keySet   bool
	departed atomic.Uint64
}

// SetOwnPlayer names the player of the server machine's own (a host that
// also plays), or none with ok false, for the handover data: a new host
// takes that player out of the match when it takes over.
func (s *Server[I]) SetOwnPlayer(id game.PlayerID, ok bool) {
	s.ho.own, s.ho.hasOwn = id, ok
}

// SetRoomKey makes key the room's key in the handover data from now on
// (a host that rotated it at the relay: roomclient.HostedRoom.Rekey, when
// a player left, so that the player who left no longer holds the key
// that claims and ends the room). The change goes to every player with
// the next ticks (a new handover version); spectators never get a key.
// It is safe to call from any goroutine, also while Update runs.
func (s *Server[I]) SetRoomKey(key string) {
	s.ho.keyMu.Lock()
	defer s.ho.keyMu.Unlock()
	s.ho.key, s.ho.keySet = key, true
}

// RoomKey returns the room's key in the handover data (Config.Room's, or
// the last SetRoomKey's). It is safe to call from any goroutine.
func (s *Server[I]) RoomKey() string {
	s.ho.keyMu.Lock()
	defer s.ho.keyMu.Unlock()
	if s.ho.keySet {
		return s.ho.key
	}
	return s.cfg.Room.Key
}

// Departures counts the players who left the match after their welcome
// (said bye, timed out, were removed): a host that rotates the room's key
// when it grows (package rooms) leaves them with a key that no longer
// claims the room. It is safe to call from any goroutine.
func (s *Server[I]) Departures() uint64 { return s.ho.departed.Load() }

// Handover returns the handover data the server sends now (its Tag is
// zero) and whether it sends any (Config.HostMigration).
func (s *Server[I]) Handover() (codec.Handover, bool) {
	if !s.cfg.HostMigration {
		return codec.Handover{}, false
	}
	s.buildHandover()
	return s.ho.msg, true
}

// buildHandover fills s.ho.msg with the handover data as it is now:
// every player in the match (loading ones too) with the digests of the
// cookies of its welcomes, as many of the newest as fit one datagram.
func (s *Server[I]) buildHandover() {
	m := &s.ho.msg
	m.Tag = 0
	m.Version = s.ho.version
	m.TickRate = uint32(s.tickRate)
	m.Code, m.Key = s.cfg.Room.Code, s.RoomKey()
	m.Open = !s.ended() && s.freeID(s.lastNow) >= 0
	m.Players = m.Players[:0]
	n := 0
	for _, p := range s.players {
		if p != nil && !p.leaving && len(p.cookies)+len(p.digests) > 0 {
			n++
		}
	}
	m.HasOwn = s.ho.hasOwn && int(s.ho.own) < len(s.players) && s.players[s.ho.own] != nil && !s.players[s.ho.own].leaving
	m.Own = uint8(s.ho.own)
	fixed := m.Length() + n // the count byte of each player
	k := codec.HandoverFit(fixed, n)
	for _, p := range s.players {
		if p == nil || p.leaving || len(p.cookies)+len(p.digests) == 0 {
			continue
		}
		if len(m.Players) < cap(m.Players) {
			m.Players = m.Players[:len(m.Players)+1]
		} else {
			m.Players = append(m.Players, codec.HandoverPlayer{})
		}
		hp := &m.Players[len(m.Players)-1]
		hp.ID = uint8(p.id)
		hp.Digests = hp.Digests[:0]
		// A player awaited from a match taken over is listed with the
		// digests it may come back with (resume.go).
		hp.Digests = append(hp.Digests, p.digests[max(0, len(p.digests)-k):]...)
		for _, sum := range p.cookies[max(0, len(p.cookies)-k+len(hp.Digests)):] {
			hp.Digests = append(hp.Digests, codec.CookieDigest(&sum))
		}
	}
	if m.HasOwn && !hasPlayer(m.Players, m.Own) {
		m.HasOwn = false
	}
}

func hasPlayer(ps []codec.HandoverPlayer, id uint8) bool {
	for i := range ps {
		if ps[i].ID == id {
			return true
		}
	}
	return false
}

// sendHandover sends the handover data to every player when it is due:
// with every round for handoverBurst after it changed, then every
// handoverEvery. Spectators get it too, without the room's key and the
// players (spectatorHandover): what tells a spectator that the match
// goes on at another host when this one goes, and where to watch it
// again (the room's code), but nothing to claim or end the room with.
func (s *Server[I]) sendHandover(now time.Time) error {
	if !s.cfg.HostMigration {
		return nil
	}
	ho := &s.ho
	s.buildHandover()
	ho.scratch = ho.msg.Append(ho.scratch[:0])
	if !bytes.Equal(ho.scratch, ho.enc) {
		// A change: a new version (the version is part of the encoding,
		// so compare before bumping it).
		ho.version++
		ho.msg.Version = ho.version
		ho.enc = ho.msg.Append(ho.enc[:0])
		// enc holds the new version: the next comparison is against a
		// build with the same version.
		ho.changedAt = now
	}
	due := now.Sub(ho.changedAt) < handoverBurst || now.Sub(ho.sentAt) >= handoverEvery
	if due {
		ho.sentAt = now
		for _, p := range s.players {
			if p == nil || p.leaving || !p.welcomed {
				continue
			}
			ho.msg.Tag = p.tag
			s.stats.HandoversOut++
			if err := s.send(p.addr, ho.msg.Append(s.wire.sbuf[:0])); err != nil {
				return err
			}
		}
	}
	// A spectator's coming changes nothing in the data: it is sent the
	// data at once when welcomed, then on the players' schedule.
	ho.msg.Tag = 0
	sm := spectatorHandover(ho.msg)
	for _, p := range s.specs {
		if p.leaving || !p.welcomed || !p.byeAt.IsZero() || (!due && p.handedOver) {
			continue
		}
		p.handedOver = true
		sm.Tag = p.tag
		s.stats.HandoversOut++
		if err := s.send(p.addr, sm.Append(s.wire.sbuf[:0])); err != nil {
			return err
		}
	}
	return nil
}

// spectatorHandover returns the handover data a spectator is sent: m
// without the room's key (it proves the room is its holder's, to claim
// or end it: a spectator is anyone with the code) and without the
// players and their cookie digests (a spectator does not claim; it
// watches the room again by its code when the host goes).
func spectatorHandover(m codec.Handover) codec.Handover {
	m.Key, m.Players, m.HasOwn, m.Own = "", nil, false, 0
	return m
}
