package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// syncBuffer is a bytes.Buffer safe for one writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeStallAcks runs `rewind serve --stall acks:30 --players 2` with
// a player that vanishes (no bye) at tick 60 and a `rewind play`: serve
// logs waiting_for= with the vanished player's id, play's status lines
// carry it while the match is held and an empty waiting_for= otherwise,
// and once the vanished player is dropped (--player-timeout 1s) the match
// goes on and play reaches its --until-tick.
func TestServeStallAcks(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveErr syncBuffer
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, []string{"--udp", "127.0.0.1:0", "--grid", "32", "--players", "2", "--stall", "acks:30", "--player-timeout", "1s"}, pw, &serveErr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	udp := ""
	for udp == "" && sc.Scan() {
		udp, _ = strings.CutPrefix(sc.Text(), "udp=")
	}
	go io.Copy(io.Discard, pr)
	if udp == "" {
		t.Fatal("serve printed no udp= line")
	}
	gone := startUDPTestPlayer(t, udp)
	gone.mu.Lock()
	_ = gone.c.SetName("gone")
	gone.mu.Unlock()
	var out, errOut string
	var code int
	var wg sync.WaitGroup
	wg.Go(func() {
		code, out, errOut = runCmd("play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "300", "--status", "50ms")
	})
	testutil.WaitUntil(ctx, t, "the vanishing player to verify tick 60", func() bool { return gone.stats().Verified >= 60 })
	gone.stop(t)
	goneID := gone.stats().Player
	wg.Wait()
	gone.conn.Close()
	cancel()
	<-done
	if code != 0 || kv(lastLine(out))["verified_tick"] != "300" {
		t.Fatalf("play: exit %d, %q\n%s", code, lastLine(out), errOut)
	}
	id := strconv.Itoa(int(goneID))
	if !strings.Contains(serveErr.String(), "waiting_for="+id) {
		t.Errorf("serve's log has no waiting_for=%s:\n%s", id, serveErr.String())
	}
	if !strings.Contains(errOut, "msg=waiting waiting_for="+id+" names=gone") {
		t.Errorf("play did not log whom it waits for by name:\n%s", errOut)
	}
	held, free := 0, 0
	for _, line := range strings.Split(errOut, "\n") {
		if !strings.Contains(line, "msg=status") {
			continue
		}
		switch {
		case strings.Contains(line, " waiting_for="+id):
			held++
		case strings.HasSuffix(line, " waiting_for=") || strings.Contains(line, " waiting_for= "):
			free++
		default:
			t.Errorf("status line without waiting_for: %q", line)
		}
	}
	if held == 0 || free == 0 {
		t.Errorf("%d status lines held for player %s, %d not held; want both:\n%s", held, id, free, errOut)
	}
}
