package roomdir

import (
	"fmt"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// Record is what the room directory knows about one room: enough for
// any relay process to tell a player whether the code names a live room,
// an ended one, or nothing, and to check a room key.
type Record struct {
	// Code is the room's code.
	Code string
	// Key is the room's 128-bit key, as 32 hex digits.
	Key string
	// Owner is the ID of the relay process whose hub holds the room's
	// host (Redis.Self); empty in a directory of one process.
	Owner string
	// Ended is set once the room's match has ended; EndedAt says when.
	Ended   bool
	EndedAt time.Time
}

// Directory maps room codes to rooms. The relay keeps it in memory
// (Memory) by default; Redis shares it between
// the relay processes of a fleet. Methods are safe for concurrent use.
type Directory interface {
	// Claim records a new room under rec.Code, failing with roomproto.ErrCodeTaken if
	// the code names a live room or an ended one still remembered at now,
	// or with roomproto.ErrUnavailable if the directory cannot tell now.
	Claim(rec Record, now time.Time) error
	// Lookup returns the room under code; ended rooms are returned until
	// they are forgotten. It fails with an error wrapping
	// roomproto.ErrUnavailable if the directory cannot tell now (Redis
	// does not answer, or has just lost its rooms).
	Lookup(code string, now time.Time) (rec Record, ok bool, err error)
	// End marks the room ended at now; it is forgotten after the
	// directory's memory span.
	End(code string, now time.Time)
	// Remove forgets a live room at once; an ended room stays
	// remembered (a late Remove does not undo an End).
	Remove(code string)
}

// Rekeyer is a Directory that keeps a live room's key up to date when
// its host rotates it (relay: "rekey"). Memory and Redis are Rekeyers.
type Rekeyer interface {
	// Rekey sets the key of the live room under code; an ended room or
	// one the directory does not hold is left as it is.
	Rekey(code, key string)
}

// Memory is a Directory in this process's memory.
type Memory struct {
	// Remember is how long an ended room is remembered.
	Remember time.Duration

	mu    sync.Mutex
	rooms map[string]Record
}

// NewMemory returns an empty directory that remembers ended
// rooms for the given span.
func NewMemory(remember time.Duration) *Memory {
	return &Memory{Remember: remember, rooms: make(map[string]Record)}
}

// live returns the record under code if it is not forgotten at now.
// The caller holds d.mu.
func (d *Memory) live(code string, now time.Time) (Record, bool) {
	rec, ok := d.rooms[code]
	if ok && rec.Ended && now.Sub(rec.EndedAt) >= d.Remember {
		delete(d.rooms, code)
		return Record{}, false
	}
	return rec, ok
}

// Claim implements Directory.
func (d *Memory) Claim(rec Record, now time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.live(rec.Code, now); ok {
		return fmt.Errorf("%w: %s", roomproto.ErrCodeTaken, rec.Code)
	}
	d.rooms[rec.Code] = rec
	return nil
}

// Lookup implements Directory.
func (d *Memory) Lookup(code string, now time.Time) (Record, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rec, ok := d.live(code, now)
	return rec, ok, nil
}

// End implements Directory.
func (d *Memory) End(code string, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rec, ok := d.rooms[code]; ok && !rec.Ended {
		rec.Ended, rec.EndedAt = true, now
		d.rooms[code] = rec
	}
}

// Rekey implements Rekeyer.
func (d *Memory) Rekey(code, key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rec, ok := d.rooms[code]; ok && !rec.Ended {
		rec.Key = key
		d.rooms[code] = rec
	}
}

// Remove implements Directory.
func (d *Memory) Remove(code string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rec, ok := d.rooms[code]; ok && !rec.Ended {
		delete(d.rooms, code)
	}
}

// Sweep forgets the ended rooms older than the memory span at now. The
// relay calls it from its timer; lookups forget lazily too.
func (d *Memory) Sweep(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for code := range d.rooms {
		d.live(code, now)
	}
}

// Len is the number of rooms remembered (live or ended).
func (d *Memory) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.rooms)
}
