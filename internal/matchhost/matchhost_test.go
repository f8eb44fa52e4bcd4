package matchhost

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestRefuseTapLogsReasons: the host's tap passes every datagram on and
// logs each refusal reason the server sent, with the address refused.
func TestRefuseTapLogsReasons(t *testing.T) {
	testutil.SkipSockets(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	a, _ := net.Dial("a", "server")
	defer a.Close()
	if err := a.Send(a.RemoteAddr(), []byte{1}); err != nil {
		t.Fatal(err)
	}
	net.Advance(start.Add(time.Millisecond))
	buf := make([]byte, 64)
	_, from, err := sconn.Recv(buf)
	if err != nil {
		t.Fatal(err)
	}
	tap := &RefuseTap{Conn: sconn}
	for _, m := range []codec.Refuse{{Reason: codec.ReasonFull}, {Reason: codec.ReasonGame}, {Reason: codec.ReasonFull}} {
		if err := tap.Send(from, m.Append(nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tap.Send(from, []byte{0x10, 0, 0}); err != nil { // not a Refuse
		t.Fatal(err)
	}
	net.Advance(start.Add(time.Second))
	got := 0
	for {
		if _, _, err := a.Recv(buf); err != nil {
			break
		}
		got++
	}
	if got != 4 {
		t.Fatalf("%d datagrams passed through, want 4", got)
	}
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	tap.log(log, start, 4, "match", 1)
	for _, want := range []string{`reason="match full" refusals=2 addr=` + string(from), `reason="incompatible game" refusals=1 addr=` + string(from), `reason=unknown refusals=1`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, out.String())
		}
	}
	out.Reset()
	tap.log(log, start.Add(2*time.Second), 0)
	if out.Len() != 0 {
		t.Errorf("reasons not forgotten:\n%s", out.String())
	}
	// A flood: one line per reason per second, with the count.
	now := start.Add(2 * time.Second)
	game := codec.Refuse{Reason: codec.ReasonGame}
	for range 10000 {
		if err := tap.Send(from, game.Append(nil)); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Millisecond)
		tap.log(log, now, 1, "match", 1)
	}
	lines := strings.Count(out.String(), "\n")
	if lines < 9 || lines > 11 || !strings.Contains(out.String(), `refusals=1000 `) {
		t.Errorf("10,000 refusals in 10 s: %d lines, want 10 of 1000 (a line per second):\n%.600s", lines, out.String())
	}
	if tap.Total[codec.ReasonGame] != 10001 || tap.Total[codec.ReasonFull] != 2 {
		t.Errorf("totals %v", tap.Total)
	}
}

// TestAddServerStatsSumsEveryCounter fills every field of two server.Stats
// by reflection and checks AddStats adds each counter: a counter
// added to server.Stats and forgotten in the sum fails here.
func TestAddServerStatsSumsEveryCounter(t *testing.T) {
	var a, b server.Stats
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		switch va.Field(i).Kind() {
		case reflect.Uint64, reflect.Uint32, reflect.Int64:
			setNum(va.Field(i), 3)
			setNum(vb.Field(i), 4)
		case reflect.Int:
			va.Field(i).SetInt(3)
			vb.Field(i).SetInt(4)
		default:
			t.Fatalf("field %s of kind %s: teach this test how to sum it", va.Type().Field(i).Name, va.Field(i).Kind())
		}
	}
	s := reflect.ValueOf(AddStats(a, b))
	for i := range s.NumField() {
		name := s.Type().Field(i).Name
		var want int64 = 7
		switch name {
		case "Players":
			want = 4 // the later match's players
		case "LongestStall":
			want = 4 // the longer stall
		}
		if got := num(s.Field(i)); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

func setNum(v reflect.Value, n int64) {
	if v.Kind() == reflect.Int64 {
		v.SetInt(n)
	} else {
		v.SetUint(uint64(n))
	}
}

func num(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.Int64, reflect.Int:
		return v.Int()
	}
	return int64(v.Uint())
}
