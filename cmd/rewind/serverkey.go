package main

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/rewindnet/rewind/transport/udp"
)

// The server's long-term UDP key (serve --key-file) and the client's
// pinning of it (play --server-key, --known-servers): docs/udp.md,
// "Encryption and the server's key".

// loadKeyFile returns the server key kept in path: 64 hex digits of the
// private key. A missing file is created (mode 0600) with a new key;
// created says so.
func loadKeyFile(path string) (key *udp.StaticKey, created bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if key, err = udp.GenerateStaticKey(); err != nil {
			return nil, false, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, false, fmt.Errorf("--key-file: %w", err)
		}
		_, werr := fmt.Fprintf(f, "%s\n", hex.EncodeToString(key.Bytes()))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, false, fmt.Errorf("--key-file: %w", werr)
		}
		return key, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("--key-file: %w", err)
	}
	priv, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(priv) != 32 {
		return nil, false, fmt.Errorf("--key-file %s: not a key (want 64 hex digits, as serve writes it)", path)
	}
	if key, err = udp.NewStaticKey(priv); err != nil {
		return nil, false, fmt.Errorf("--key-file %s: %v", path, err)
	}
	return key, false, nil
}

// knownServers is a trust-on-first-use file of server keys: one
// "HOST:PORT KEY" line per server (blank lines and lines starting with #
// are skipped).
type knownServers struct {
	path string
	keys map[string]udp.PublicKey
}

// readKnownServers reads path; a missing file is an empty one.
func readKnownServers(path string) (*knownServers, error) {
	k := &knownServers{path: path, keys: map[string]udp.PublicKey{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--known-servers: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("--known-servers %s:%d: want HOST:PORT KEY", path, n)
		}
		key, err := udp.ParsePublicKey(fields[1])
		if err != nil {
			return nil, fmt.Errorf("--known-servers %s:%d: %v", path, n, err)
		}
		k.keys[fields[0]] = key
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--known-servers: %w", err)
	}
	return k, nil
}

// add appends addr's key to the file.
func (k *knownServers) add(addr string, key udp.PublicKey) error {
	f, err := os.OpenFile(k.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("--known-servers: %w", err)
	}
	_, werr := fmt.Fprintf(f, "%s %s\n", addr, key)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("--known-servers: %w", werr)
	}
	k.keys[addr] = key
	return nil
}

// serverKeyCheck is play's view of the server's key: the pin (from
// --server-key, or the --known-servers line of the address), and what
// the handshake proved.
type serverKeyCheck struct {
	addr   string
	pin    udp.PublicKey
	known  *knownServers // nil without --known-servers
	proved udp.PublicKey
	log    *slog.Logger
}

// newServerKeyCheck reads the flags: flag is --server-key's value,
// knownPath --known-servers'.
func newServerKeyCheck(addr, flag, knownPath string, log *slog.Logger) (*serverKeyCheck, error) {
	c := &serverKeyCheck{addr: addr, log: log}
	if flag != "" {
		k, err := udp.ParsePublicKey(flag)
		if err != nil {
			return nil, usageError{Err: fmt.Errorf("--server-key: want the 64 hex digits serve printed as server_key=")}
		}
		c.pin = k
	}
	if knownPath != "" {
		known, err := readKnownServers(knownPath)
		if err != nil {
			return nil, err
		}
		c.known = known
		if k, ok := known.keys[addr]; ok {
			if !c.pin.IsZero() && k != c.pin {
				return nil, fmt.Errorf("--server-key %s differs from the key %s keeps for %s", c.pin, knownPath, addr)
			}
			c.pin = k
		}
	}
	return c, nil
}

// verify is the UDP client's VerifyServerKey: it logs the key the server
// proved (after the transport checked it against the pin).
func (c *serverKeyCheck) verify(k udp.PublicKey) error {
	c.proved = k
	c.log.Info("server key", "server", c.addr, "server_key", k.String(), "pinned", !c.pin.IsZero())
	return nil
}

// connected records a new server's key in the --known-servers file
// (trust on first use); without the file nothing is kept.
func (c *serverKeyCheck) connected() error {
	if c.known == nil || !c.pin.IsZero() || c.proved.IsZero() {
		return nil
	}
	if err := c.known.add(c.addr, c.proved); err != nil {
		return err
	}
	c.log.Info("server key kept", "server", c.addr, "known_servers", c.known.path)
	return nil
}
