package netutil

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// serveTest serves h with lim on 127.0.0.1:0 until the test ends.
func serveTest(t *testing.T, lim HTTPLimits, h http.Handler) (string, *LimitedListener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ll := lim.Listener(ln)
	srv := lim.Server(h)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ll)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return ln.Addr().String(), ll
}

// closedByServer reports whether the server closed c (a read gets EOF or
// a reset) within the generous bound.
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func TestHTTPLimitsPerIPAndIdle(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	// The timeouts must outlast the 4 accepts and the 5th's refusal: at
	// 100 ms a loaded machine (CI at load 25-40) closed one of the 4 by
	// its header timeout before the 4th was accepted, and the test waited
	// for 4 open until the binary's 15 minutes ran out. 2 s is far above
	// such stalls and far below closedByServer's 10 s.
	lim := HTTPLimits{ConnsPerIP: 4, IdleTimeout: 2 * time.Second, ReadHeaderTimeout: 2 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a hang guard
	defer cancel()
	addr, ll := serveTest(t, lim, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	var conns []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	testutil.WaitUntil(ctx, t, "4 connections accepted", func() bool { n, _ := ll.Stats(); return n == 4 })
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	if !closedByServer(over) {
		t.Fatal("a 5th connection from one address stayed open")
	}
	if _, refused := ll.Stats(); refused != 1 {
		t.Fatalf("refused %d, want 1", refused)
	}
	// One request on a connection, then silence: the idle timeout closes
	// it; the others never sent a header: the header timeout closes them.
	io.WriteString(conns[0], "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	for i, c := range conns {
		if !closedByServer(c) {
			t.Fatalf("connection %d not closed", i)
		}
	}
	testutil.WaitUntil(ctx, t, "every place freed", func() bool { n, _ := ll.Stats(); return n == 0 })
}

func TestHTTPLimitsWriteStall(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	body := bytes.Repeat([]byte("x"), 32<<20)
	werr := make(chan error, 2)
	// 2 s without progress: long enough that a reader starved of the CPU
	// on a loaded machine is not taken for a stalled one (200 ms was not).
	addr, _ := serveTest(t, HTTPLimits{WriteStall: 2 * time.Second}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := w.Write(body)
		werr <- err
	}))
	// A reader that reads all of it gets all of it, in any time.
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != int64(len(body)) {
		t.Fatalf("read %d of %d: %v", n, len(body), err)
	}
	if err := <-werr; err != nil {
		t.Fatalf("server write to a reader: %v", err)
	}
	// A reader that stops reading is cut.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case err := <-werr:
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Fatalf("server write to a stalled reader: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a stalled reader was never cut")
	}
}
