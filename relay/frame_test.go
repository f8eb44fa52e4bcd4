package relay

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestRoomFrameOverLimitRefused: a frame header declaring 2^63-1 bytes closes
// the connection as soon as it arrives, not at an idle timeout (set to an
// hour here, so only the frame guard can close it).
func TestRoomFrameOverLimitRefused(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{IdleTimeout: time.Hour})
	u := strings.TrimPrefix(r.url, "ws://")
	host, path, _ := strings.Cut(u, "/")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /"+path+" HTTP/1.1\r\nHost: "+host+"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	hdr := []byte{0x81, 0x80 | 127}
	hdr = binary.BigEndian.AppendUint64(hdr, 1<<63-1)
	c.Write(append(hdr, 1, 2, 3, 4))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	rest, err := io.ReadAll(br)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a frame declaring 2^63-1 bytes did not close the connection")
	}
	if !strings.Contains(string(rest), roomproto.ErrCodeTooLarge) {
		t.Logf("closed without the too_large message (%q)", rest)
	}
	testutil.WaitUntil(testCtx(t), t, "the relay to forget the connection", func() bool {
		n, _ := r.srv.Stats()
		return n == 0
	})
}
