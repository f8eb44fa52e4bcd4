//go:build !js

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestModuleTravelsToPlay: `rewind serve --game coins.wasm` and a
// `rewind play` given no --game: refused as sand, it joins again as a
// player of the host's module, which it fetches from the match and puts
// in --module-cache by its SHA-256; the server's and the player's replays
// verify with no module file (the replays carry it).
func TestModuleTravelsToPlay(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	wasm, err := os.ReadFile("../../examples/modules/c/coins.wasm")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "coins.wasm") // removed before the replays
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	udp, _, stop := startServe(t, "--game", path, "--udp", "127.0.0.1:0", "--status", "0", "--record", filepath.Join(dir, "rec"))
	cache, rec := filepath.Join(dir, "cache"), filepath.Join(dir, "player.rwreplay")
	c, o, e := runCmd("play", "--headless", "--connect", udp, "--until-tick", "60", "--status", "0",
		"--input", "random", "--module-cache", cache, "--record", rec)
	stop()
	if c != 0 || kv(lastLine(o))["verified_tick"] != "60" {
		t.Fatalf("play with no --game: exit %d\n%s\n%s", c, o, e)
	}
	sum := sha256.Sum256(wasm)
	if b, err := os.ReadFile(filepath.Join(cache, hex.EncodeToString(sum[:])+".wasm")); err != nil || string(b) != string(wasm) {
		t.Errorf("the module in --module-cache: %d bytes, %v", len(b), err)
	}
	os.Remove(path)
	files, _ := filepath.Glob(filepath.Join(dir, "rec", "*.rwreplay"))
	for _, f := range append(files, rec) {
		c, o, e := runCmd("replay", f)
		if c != 0 || kv(lastLine(o))["verified"] != "true" {
			t.Errorf("replay %s without the module file: exit %d\n%s\n%s", filepath.Base(f), c, o, e)
		}
	}
	if len(files) != 1 {
		t.Errorf("server replays: %v", files)
	}
}
