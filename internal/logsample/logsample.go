// Package logsample samples log lines by key: a flood of one kind of event
// (refused connections, bad hellos) costs one line per key per period,
// the next line saying how many were not logged, never a line per event.
// Counters (Stats, metrics) count every event; the log only samples.
package logsample

import (
	"log/slog"
	"sync"
	"time"
)

// DefaultEvery is the period a Sampler uses when Every is zero: one line
// per key per second.
const DefaultEvery = time.Second

// Sampler logs at most one line per key per Every. The zero value is ready
// to use; it is safe for concurrent use.
type Sampler struct {
	// Every is the least time between two lines of one key (0:
	// DefaultEvery).
	Every time.Duration

	mu   sync.Mutex
	last map[string]time.Time
	held map[string]int
}

// Log logs msg at level Info with args and "key"=key (under the name
// keyName), unless key was logged less than Every before now; then it is
// only counted, and the key's next line carries "unlogged"=the count.
// It reports whether it logged.
func (s *Sampler) Log(log *slog.Logger, now time.Time, msg, keyName, key string, args ...any) bool {
	every := s.Every
	if every <= 0 {
		every = DefaultEvery
	}
	s.mu.Lock()
	if s.last == nil {
		s.last, s.held = map[string]time.Time{}, map[string]int{}
	}
	last, seen := s.last[key]
	if seen && now.Sub(last) < every {
		s.held[key]++
		s.mu.Unlock()
		return false
	}
	held := s.held[key]
	s.last[key], s.held[key] = now, 0
	s.mu.Unlock()
	args = append(args, keyName, key)
	if held > 0 {
		args = append(args, "unlogged", held)
	}
	log.Info(msg, args...)
	return true
}
