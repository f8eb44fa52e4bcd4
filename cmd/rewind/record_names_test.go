package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/replay"
)

// TestServeRecordNames: serve --record DIR's recorders create no file
// until their match starts (Open), and the files of matches started one
// after another, in the same millisecond or not, sort by name in start
// order.
func TestServeRecordNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replays")
	rf := recordFlags{path: dir}
	grid := 32
	gf := gameFlags{name: "sand", tickRate: 60, settings: map[string]*int{"grid": &grid}}
	if err := gf.check(); err != nil {
		t.Fatal(err)
	}
	newRec, err := rf.perMatch(&gf, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]*replay.Recorder, 40)
	for i := range recs {
		recs[i] = newRec().(*replay.Recorder)
	}
	if es, err := os.ReadDir(dir); err != nil || len(es) != 0 {
		t.Fatalf("files before any match started: %v %v", es, err)
	}
	var started []string
	for _, r := range recs {
		w, err := r.Open(codec.ReplayHeader{})
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, w.(*os.File).Name())
		_ = w.(io.Closer).Close()
	}
	names, _ := filepath.Glob(filepath.Join(dir, "match-*.rwreplay"))
	if len(names) != len(recs) {
		t.Fatalf("%d files for %d matches", len(names), len(recs))
	}
	slices.Sort(names)
	if !slices.Equal(names, started) {
		t.Fatalf("names sorted\n%q\nstart order\n%q", names, started)
	}
}
