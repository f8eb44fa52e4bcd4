package module

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Cache keeps modules by their SHA-256, so that a player fetches a
// host's module once: in memory, and, when Dir is set, in files named by
// the hash in hex with ".wasm" (a file whose bytes do not hash to its
// name is ignored). The zero Cache keeps them in memory only. It is safe
// for concurrent use.
type Cache struct {
	// Dir is the directory of the cached files ("" : memory only). It is
	// made when the first module is put.
	Dir string

	mu  sync.Mutex
	mem map[[32]byte][]byte
}

// Get returns the module whose SHA-256 is sum, if the cache has it.
func (c *Cache) Get(sum [32]byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.mem[sum]; ok {
		return b, true
	}
	if c.Dir == "" {
		return nil, false
	}
	b, err := os.ReadFile(c.path(sum))
	if err != nil || sha256.Sum256(b) != sum {
		return nil, false
	}
	c.keep(sum, b)
	return b, true
}

// Put keeps b (a module's bytes) under its SHA-256 and returns the hash.
// An error says the file could not be written (the module is kept in
// memory all the same).
func (c *Cache) Put(b []byte) ([32]byte, error) {
	sum := sha256.Sum256(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.mem[sum]; ok {
		return sum, nil
	}
	b = append([]byte(nil), b...)
	c.keep(sum, b)
	if c.Dir == "" {
		return sum, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return sum, fmt.Errorf("module: cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.Dir, ".fetch-*")
	if err != nil {
		return sum, fmt.Errorf("module: cache: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path(sum))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return sum, fmt.Errorf("module: cache: %w", err)
	}
	return sum, nil
}

func (c *Cache) keep(sum [32]byte, b []byte) {
	if c.mem == nil {
		c.mem = map[[32]byte][]byte{}
	}
	c.mem[sum] = b
}

func (c *Cache) path(sum [32]byte) string {
	return filepath.Join(c.Dir, hex.EncodeToString(sum[:])+".wasm")
}
