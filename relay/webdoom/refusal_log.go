package webdoom

import (
	"log/slog"
	"sync"
	"time"
)

// refusalLogEvery is how often a refusal reason is logged at most: a flood
// of refused connections costs one line per reason per second, with the
// count of those not logged (Stats counts every one).
const refusalLogEvery = time.Second

// refusalLog samples the "webdoom: refused" lines per reason.
type refusalLog struct {
	mu   sync.Mutex
	last map[string]time.Time
	held map[string]int
}

// log logs a refusal for reason with args, unless that reason was logged
// less than refusalLogEvery before now; then it is counted, and the next
// line of the reason says how many were not logged ("unlogged").
func (l *refusalLog) log(log *slog.Logger, now time.Time, reason string, args ...any) {
	l.mu.Lock()
	if l.last == nil {
		l.last, l.held = map[string]time.Time{}, map[string]int{}
	}
	last, seen := l.last[reason]
	if seen && now.Sub(last) < refusalLogEvery {
		l.held[reason]++
		l.mu.Unlock()
		return
	}
	held := l.held[reason]
	l.last[reason], l.held[reason] = now, 0
	l.mu.Unlock()
	args = append(args, "reason", reason)
	if held > 0 {
		args = append(args, "unlogged", held)
	}
	log.Info("webdoom: refused", args...)
}
