// Package redisproc runs a private redis-server (Debian's redis-server
// package) on a free port of 127.0.0.1, its files in a directory of the
// caller's, without persistence: what the tests (testutil.StartRedis) and
// `rewind-bench relays` start when they are given no Redis.
package redisproc

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"time"
)

// ErrNotInstalled indicates that no redis-server is on the PATH.
var ErrNotInstalled = errors.New("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")

// Server is a running redis-server.
type Server struct {
	// URL is the server's URL, "redis://127.0.0.1:PORT/0".
	URL string

	bin, dir string
	port     int
	cmd      *exec.Cmd // nil once closed
}

// Start starts a redis-server with its files in dir and returns once it
// listens (within 10 s). On Linux the server dies with the calling
// process, however that dies.
func Start(dir string) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNotInstalled
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), bin: bin, dir: dir, port: port}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// start starts the server on s.port and waits until it listens.
func (s *Server) start() error {
	cmd := exec.Command(s.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port), "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning")
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			s.Close()
			return fmt.Errorf("redis-server did not listen on %s: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Close kills the server and waits for it.
func (s *Server) Close() error {
	if s.cmd != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
	return nil
}

// Restart kills the server (if it runs) and starts an empty one on the
// same port: what a Redis without persistence that restarts looks like to
// its clients.
func (s *Server) Restart() error {
	s.Close()
	return s.start()
}
