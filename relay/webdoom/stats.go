package webdoom

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Reasons for drops and refusals, as logged and as the reason label of
// the rewind_webdoom_drops_total and rewind_webdoom_refusals_total metrics
// that `rewind webdoom --metrics-http` exports.
const (
	DropSilent      = "silent"        // a laggard not heard from for Drop
	DropNeverJoined = "never joined"  // a launch-roster player never connected
	DropJoinTimeout = "join timeout"  // a reservation unused for JoinTimeout
	DropLeft        = "disconnected"  // its game socket closed
	DropSlow        = "slow consumer" // its send queue overflowed or a write stalled
	DropOversize    = "oversize message"

	RefuseConnCap      = "connection cap"
	RefuseRateCap      = "rate cap"
	RefuseBadSlot      = "bad slot"
	RefuseNoSession    = "no session"
	RefuseSlotTaken    = "slot taken"
	RefuseLobbyFull    = "lobby full"
	RefuseHistoryCap   = "history cap"
	RefuseSpectatorCap = "spectator cap"
	RefuseBadPath      = "bad upgrade path"
	RefuseLobbyIdle    = "lobby seat idle" // Config.LobbyIdle
)

// Stats is a snapshot of what the relay did since it started: plain
// counters that only grow, for logs, tests and metrics exporters (the
// package imports no metrics library; cmd/rewind exports these as the
// rewind_webdoom_* Prometheus metrics).
type Stats struct {
	Sessions     uint64 // sessions started
	SessionsOver uint64 // sessions ended
	Seals        uint64 // tics sealed
	ForcedSeals  uint64 // tics sealed by the sweep (someone was late)
	Fabrications uint64 // in-game cmds the relay fabricated

	// Drops counts players or connections dropped, by reason (the Drop*
	// constants); a reason that never happened is absent.
	Drops map[string]uint64
	// Refusals counts connections refused, by reason (the Refuse*
	// constants); a reason that never happened is absent.
	Refusals map[string]uint64
}

// counters is what the core and the server count into. The core's
// goroutine and the server's network goroutines write it; any goroutine
// may take a snapshot.
type counters struct {
	sessions     atomic.Uint64
	sessionsOver atomic.Uint64
	seals        atomic.Uint64
	forcedSeals  atomic.Uint64
	fabrications atomic.Uint64

	mu       sync.Mutex
	drops    map[string]uint64
	refusals map[string]uint64
}

func (s *counters) drop(reason string) {
	s.mu.Lock()
	if s.drops == nil {
		s.drops = map[string]uint64{}
	}
	s.drops[reason]++
	s.mu.Unlock()
}

func (s *counters) refuse(reason string) {
	s.mu.Lock()
	if s.refusals == nil {
		s.refusals = map[string]uint64{}
	}
	s.refusals[reason]++
	s.mu.Unlock()
}

// snapshot copies the counters.
func (s *counters) snapshot() Stats {
	st := Stats{
		Sessions:     s.sessions.Load(),
		SessionsOver: s.sessionsOver.Load(),
		Seals:        s.seals.Load(),
		ForcedSeals:  s.forcedSeals.Load(),
		Fabrications: s.fabrications.Load(),
	}
	s.mu.Lock()
	st.Drops, st.Refusals = maps.Clone(s.drops), maps.Clone(s.refusals)
	s.mu.Unlock()
	if st.Drops == nil {
		st.Drops = map[string]uint64{}
	}
	if st.Refusals == nil {
		st.Refusals = map[string]uint64{}
	}
	return st
}
