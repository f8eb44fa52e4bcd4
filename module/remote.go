package module

import (
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Remote is the game of whichever module the host plays, for a player
// that was given no module file: a game.Configurable and a
// game.ModuleTaker. The host's welcome names its module by SHA-256
// (Game.MatchSettings); a Remote that has no module of that hash (neither
// taken before nor in its Cache) says so (NeedModule), the client fetches
// the bytes from the match and gives them to TakeModule, which loads them
// with the Remote's Config and puts them in the Cache; WithMatchSettings
// then returns that module's game with the host's seed.
//
// A Remote itself is never stepped: its world (one empty page) only lets
// a client be made before the welcome. It is safe for concurrent use.
type Remote struct {
	cfg   Config
	cache *Cache

	mu      sync.Mutex
	loaded  map[[32]byte]*Module
	current *Module // the module of the last WithMatchSettings
}

// NewRemote returns a Remote that loads modules with cfg and keeps them
// in cache (nil: a memory cache of its own).
func NewRemote(cfg Config, cache *Cache) *Remote {
	if cache == nil {
		cache = &Cache{}
	}
	return &Remote{cfg: cfg, cache: cache, loaded: map[[32]byte]*Module{}}
}

// Register declares a world of one empty page.
func (r *Remote) Register(s *world.Schema) error {
	world.AddTable[[wasmPage]byte](s, "memory", 1)
	return s.Err()
}

// Setup does nothing: the world of the host's module comes from the host.
func (r *Remote) Setup(*world.World) error { return nil }

// Step does nothing: the game played is the one WithMatchSettings
// returns.
func (r *Remote) Step(*world.World, *game.Tick[Input]) {}

// MatchSettings returns nil: a Remote has no settings of its own (it
// never hosts).
func (r *Remote) MatchSettings() []byte { return nil }

// WithMatchSettings returns the game of the host's module with the
// host's seed, or ErrHash when the Remote does not have that module (it
// was not taken, nor is it in the cache).
func (r *Remote) WithMatchSettings(b []byte) (game.Game[Input], error) {
	sum, seed, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m, err := r.module(sum)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%w: module %x is not at hand (it is fetched from the match)", ErrHash, sum[:8])
	}
	r.current = m
	return m.Game(seed), nil
}

// module returns the loaded module of hash sum, loading it from the cache
// if it is there (nil, nil when it is not; r.mu held).
func (r *Remote) module(sum [32]byte) (*Module, error) {
	if m, ok := r.loaded[sum]; ok {
		return m, nil
	}
	b, ok := r.cache.Get(sum)
	if !ok {
		return nil, nil
	}
	m, err := Load(moduleName(sum), b, r.cfg)
	if err != nil {
		return nil, err
	}
	r.loaded[sum] = m
	return m, nil
}

// moduleName names a fetched module in errors and logs: its hash.
func moduleName(sum [32]byte) string { return hex.EncodeToString(sum[:8]) + ".wasm" }

// NeedModule reports whether the module the settings b name is missing
// (game.ModuleTaker), with the most bytes of a module the Remote takes
// (Config.MaxBytes). Settings it cannot read, or a cached module that
// does not load, need nothing: WithMatchSettings says what is wrong.
func (r *Remote) NeedModule(b []byte) (sum [32]byte, maxBytes int, need bool) {
	sum, _, err := parseSettings(b)
	if err != nil {
		return sum, 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m, err := r.module(sum)
	return sum, r.cfg.withDefaults().MaxBytes, m == nil && err == nil
}

// TakeModule loads b (a module the client fetched and checked) and keeps
// it in the cache (in memory when the cache's directory cannot be
// written: the match goes on).
func (r *Remote) TakeModule(b []byte) error {
	sum, _ := r.cache.Put(b)
	m, err := Load(moduleName(sum), b, r.cfg)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.loaded[sum] = m
	r.mu.Unlock()
	return nil
}

// Current returns the module of the last game WithMatchSettings
// returned (nil before one).
func (r *Remote) Current() *Module {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}
