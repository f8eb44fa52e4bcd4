package world

import (
	"context"
	"testing"
	"time"
)

// TestRun measures a short run: every figure is there, and the encodings
// are smaller than what they are compared with where the design says so
// (a one-tick delta below its XOR compressed by zstd, the whole world
// below its raw bytes).
func TestRun(t *testing.T) {
	res, err := Run(context.Background(), Config{MinTime: time.Millisecond, Seconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot <= 0 || res.Hash <= 0 || res.PageHashes <= 0 || res.SnapshotVsMemcpy <= 0 || res.Snapshot1PctVsFull <= 0 {
		t.Errorf("timings %+v", res)
	}
	if res.Sand.Bytes <= 0 || res.Sand.Bytes >= res.Sand.XorZstd || res.Table.Bytes <= 0 {
		t.Errorf("deltas: sand %+v, table %+v", res.Sand, res.Table)
	}
	if w := res.Whole; w.Bytes <= 0 || w.Bytes >= w.Raw || w.Encode <= 0 || w.Decode <= 0 {
		t.Errorf("whole world %+v", w)
	}
	for i, ps := range []int{4096, 16384} {
		if p := res.Pages[i]; p.PageSize != ps || p.Repair <= 0 || p.HashList <= 0 || p.World <= 0 {
			t.Errorf("pages %d: %+v", ps, p)
		}
	}
	kv := res.Pairs()
	if len(kv) != 2*35 || kv[0] != "snapshot_vs_memcpy" || kv[len(kv)-2] != "p16k_page_hash_list_bytes" {
		t.Errorf("%d pairs: %v", len(kv)/2, kv)
	}
}

// TestRunStops: a run whose context has ended returns its error.
func TestRunStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Config{MinTime: time.Millisecond, Seconds: 1}); err != context.Canceled {
		t.Fatalf("err %v", err)
	}
}
