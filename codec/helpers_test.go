package codec

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/rewindnet/rewind/transport"
)

// message is what every message type offers.
type message interface {
	Length() int
	Append([]byte) []byte
}

// checkMessage checks, quic-go style, that m's encoding has Length() bytes,
// parses back to an equal value using all of it, that appending to a
// non-empty slice works, and that every truncation fails with
// io.ErrUnexpectedEOF.
func checkMessage[M any](t *testing.T, m *M, parse func([]byte) (M, int, error)) []byte {
	t.Helper()
	mm := any(m).(message)
	b := mm.Append(nil)
	if len(b) != mm.Length() {
		t.Fatalf("Length() = %d, len(Append(nil)) = %d", mm.Length(), len(b))
	}
	if len(b) > transport.MaxDatagram {
		t.Fatalf("encoding of %d bytes exceeds MaxDatagram", len(b))
	}
	got, n, err := parse(b)
	if err != nil {
		t.Fatalf("parse(%x): %v", b, err)
	}
	if n != len(b) {
		t.Fatalf("parse consumed %d of %d bytes", n, len(b))
	}
	if !reflect.DeepEqual(normalize(got), normalize(*m)) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, *m)
	}
	prefixed := mm.Append([]byte("xyz"))
	if !bytes.Equal(prefixed[3:], b) {
		t.Fatalf("Append to a non-empty slice differs")
	}
	for i := 0; i < len(b); i++ {
		_, _, err := parse(b[:i])
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("truncation to %d of %d bytes: err = %v, want io.ErrUnexpectedEOF", i, len(b), err)
		}
	}
	return b
}

// normalize turns empty slices into nil for comparison.
func normalize(v any) any {
	rv := reflect.ValueOf(&v).Elem().Elem()
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	if cp.Kind() == reflect.Struct {
		for i := 0; i < cp.NumField(); i++ {
			f := cp.Field(i)
			if f.Kind() == reflect.Slice && f.Len() == 0 && f.CanSet() {
				f.Set(reflect.Zero(f.Type()))
			}
		}
	}
	return cp.Interface()
}

// mustFail checks that parse refuses b with an error matching want.
func mustFail[M any](t *testing.T, name string, b []byte, parse func([]byte) (M, int, error), want error) {
	t.Helper()
	_, _, err := parse(b)
	if err == nil {
		t.Fatalf("%s: parse(%x) succeeded, want %v", name, b, want)
	}
	if want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: parse(%x) = %v, want %v", name, b, err, want)
	}
}
