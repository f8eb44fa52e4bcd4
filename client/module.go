package client

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

// moduleFetch is the client's side of getting the match's game module
// from the server (a WebAssembly game the player was not given: its game
// is a game.ModuleTaker). Flow:
//
//	server: Welcome, whose match settings name the module (SHA-256)
//	client: (the game lacks it) ModuleRequest{sum, first, mask} for up
//	        to moduleWindow chunks not yet asked, more as they come; the
//	        missing ones again after a retry interval without progress
//	server: a ModuleChunk for each chunk asked
//	client: the module whole: its SHA-256 must be the one named (else
//	        the match is refused), the game takes it (TakeModule), and
//	        the welcome is taken as if it came now
//
// Nothing else of the server is read meanwhile: its ticks and its world
// are sent again until acknowledged, and a newer welcome (the server
// moved the player on while it waited) replaces the one kept.
type moduleFetch struct {
	sum     [32]byte
	max     int    // the most bytes the game takes
	welcome []byte // the newest welcome, taken once the module is in
	wID     uint32 // its transfer id and tick
	wTick   uint32
	done    bool // fetched: the welcome must not ask again

	total    uint32 // 0 until the first chunk
	count    uint32
	blob     []byte
	got      []bool
	held     uint32
	askedTo  uint32 // every chunk below was asked at least once
	progress time.Time
}

// moduleWindow is how many chunks the client asks for beyond those it
// holds: a request's 64, and the next request's when half of it came.
const moduleWindow = 128

// needModule reports whether the welcome's settings name a module the
// game lacks, and starts fetching it if so.
func (c *Client[I]) needModule(now time.Time, m *codec.Welcome, b []byte) (bool, error) {
	mt, ok := game.As[game.ModuleTaker](c.g)
	if !ok || !c.cfg.HostSettings {
		return false, nil
	}
	sum, most, need := mt.NeedModule(m.Settings)
	if !need {
		return false, nil
	}
	if c.mod.done {
		return false, fmt.Errorf("client: the game still lacks module %x after it was fetched: %w", sum[:8], ErrRefused)
	}
	c.mod = moduleFetch{sum: sum, max: most, welcome: append([]byte(nil), b...), wID: m.Transfer, wTick: m.Tick, progress: now}
	c.tag, c.me, c.join.cookie = m.Tag, game.PlayerID(m.Player), m.Cookie
	c.phase = gettingModule
	c.join.early = nil // the server sends them again
	return true, c.askModule(now, false)
}

// handleGettingModule handles a datagram (not a welcome) that came while
// the module loads: a piece of it, or something the server sends again
// once the module is in.
func (c *Client[I]) handleGettingModule(now time.Time, typ codec.Type, tag uint8, b []byte) error {
	if tag != c.tag {
		return fmt.Errorf("client: stray %v datagram", typ)
	}
	c.clock.lastHeard = now
	if typ == codec.TypeModule {
		return c.onModuleChunk(now, b)
	}
	return nil
}

// onModuleWelcome keeps a newer welcome that came while the module
// loads.
func (c *Client[I]) onModuleWelcome(m *codec.Welcome, b []byte) {
	f := &c.mod
	if m.Tag != c.tag || int32(m.Transfer-f.wID) <= 0 || int32(m.Tick-f.wTick) <= 0 {
		return
	}
	f.welcome = append(f.welcome[:0], b...)
	f.wID, f.wTick = m.Transfer, m.Tick
}

// askModule asks for the chunks not asked yet, up to moduleWindow past
// those held; with again, first for the missing ones below.
func (c *Client[I]) askModule(now time.Time, again bool) error {
	f := &c.mod
	if f.total == 0 {
		// The size comes with the first chunk: ask for the first 64.
		c.st.ModuleRequests++
		m := codec.ModuleRequest{Tag: c.tag, Sum: f.sum, First: 0, Mask: 1<<64 - 1}
		f.askedTo = 64
		return c.send(m.Append(c.sbuf[:0]))
	}
	from := f.askedTo
	if again {
		from = 0
		for from < f.askedTo && f.got[from] {
			from++
		}
	}
	for sent := 0; from < f.count && sent < 2; sent++ {
		if !again && f.askedTo-f.held >= moduleWindow/2 && from >= f.askedTo {
			break
		}
		m := codec.ModuleRequest{Tag: c.tag, Sum: f.sum, First: from}
		for i := uint32(0); i < 64 && from+i < f.count; i++ {
			if !f.got[from+i] {
				m.Mask |= 1 << i
			}
		}
		from = min(from+64, f.count)
		f.askedTo = max(f.askedTo, from)
		if m.Mask == 0 {
			continue
		}
		c.st.ModuleRequests++
		if err := c.send(m.Append(c.sbuf[:0])); err != nil {
			return err
		}
	}
	return nil
}

// moduleTimers asks again for the missing chunks when none came for a
// retry interval.
func (c *Client[I]) moduleTimers(now time.Time) error {
	if now.Sub(c.mod.progress) < c.retryInterval() {
		return nil
	}
	c.mod.progress = now
	return c.askModule(now, true)
}

// onModuleChunk takes a piece of the module; with the last one, checks
// the whole and takes the welcome that waited for it.
func (c *Client[I]) onModuleChunk(now time.Time, b []byte) error {
	m, _, err := codec.ParseModuleChunk(b)
	if err != nil {
		return err
	}
	f := &c.mod
	if f.total == 0 {
		if int64(m.Total) > int64(f.max) {
			return fmt.Errorf("client: the host's module is %d bytes, the cap is %d (--module-max-bytes): %w", m.Total, f.max, ErrRefused)
		}
		f.total, f.count = m.Total, codec.ModuleChunks(m.Total)
		f.blob = make([]byte, m.Total)
		f.got = make([]bool, f.count)
	}
	if m.Total != f.total {
		return fmt.Errorf("client: module chunk of a module of %d bytes, not %d: %w", m.Total, f.total, codec.ErrMalformed)
	}
	if f.got[m.Index] {
		return nil
	}
	f.got[m.Index] = true
	f.held++
	f.progress = now
	c.st.ModuleBytes += uint64(len(m.Data))
	copy(f.blob[int(m.Index)*codec.ModuleChunkData:], m.Data)
	if f.held < f.count {
		return c.askModule(now, false)
	}
	return c.moduleFetched(now)
}

// moduleFetched checks the module, gives it to the game and takes the
// welcome.
func (c *Client[I]) moduleFetched(now time.Time) error {
	f := &c.mod
	if sum := sha256.Sum256(f.blob); !bytes.Equal(sum[:], f.sum[:]) {
		return fmt.Errorf("client: the host's module (%d bytes) has SHA-256 %x, its welcome named %x: %w", len(f.blob), sum[:8], f.sum[:8], ErrRefused)
	}
	mt, _ := game.As[game.ModuleTaker](c.g)
	if err := mt.TakeModule(f.blob); err != nil {
		return fmt.Errorf("client: the host's module: %v: %w", err, ErrRefused)
	}
	welcome := f.welcome
	*f = moduleFetch{done: true}
	c.phase = connecting
	return c.onWelcome(now, welcome)
}
