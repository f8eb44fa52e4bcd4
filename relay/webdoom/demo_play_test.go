package webdoom

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// loadDemoCmds reads a DOOM 1.9 single-player demo (testdata/doom-demos)
// as WebDoom ticcmds: forward, side, angleturn (the high byte), buttons.
func loadDemoCmds(t *testing.T, name string) []wire.TicCmd {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "doom-demos", name))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []wire.TicCmd
	for p := 13; p+4 <= len(b) && b[p] != 0x80; p += 4 {
		cmds = append(cmds, wire.NewTicCmd(int8(b[p]), int8(b[p+1]), int16(b[p+2])<<8, 0, 0, b[p+3]))
	}
	return cmds
}

// TestCoreRealDemos plays the four freedoom demos side by side as
// four players at 35 Hz in made-up time; a demo that ends is a player who
// leaves. Every bundle must carry each playing slot's recorded cmd,
// unfabricated, and the session ends with the longest demo.
func TestCoreRealDemos(t *testing.T) {
	var demos [4][]wire.TicCmd
	for i := range demos {
		demos[i] = loadDemoCmds(t, []string{"freedoom1-DEMO1.lmp", "freedoom1-DEMO2.lmp", "freedoom1-DEMO3.lmp", "freedoom1-DEMO4.lmp"}[i])
	}
	h := newWDCoreHarness(t, DefaultConfig())
	h.launch(4)
	var g [4]ConnID
	for i := range g {
		g[i] = h.game("slot=" + string(rune('0'+i)))
	}
	left := [4]bool{}
	for tic := 0; h.c.Status().Session; tic++ {
		for i := range g {
			switch {
			case tic < len(demos[i]):
				h.apply(h.c.GameMessage(g[i], wire.Cmd{Tic: uint32(tic), Cmd: demos[i][tic]}.Append(nil), h.now))
			case !left[i]:
				left[i] = true
				h.close(g[i])
			}
		}
		h.advance(time.Second / 35)
		for i := range g {
			if left[i] {
				continue
			}
			for _, b := range h.bundles(g[i]) {
				for s := range 4 {
					playing := int(b.Tic) < len(demos[s])
					if playing != (b.InGame&(1<<s) != 0) || playing && (b.Fabricated&(1<<s) != 0 || b.Cmds[s] != demos[s][b.Tic]) {
						t.Fatalf("tic %d slot %d: in %04b fab %04b cmd %x", b.Tic, s, b.InGame, b.Fabricated, b.Cmds[s])
					}
				}
			}
		}
	}
	if got, want := h.c.Stats().Seals, uint64(len(demos[3])); got != want {
		t.Fatalf("%d tics sealed, the longest demo has %d", got, want)
	}
	if h.c.Stats().Fabrications != 0 {
		t.Fatalf("%d fabrications", h.c.Stats().Fabrications)
	}
}

// TestDemoStoreRealDemo stores a real recorded game and gets it back.
func TestDemoStoreRealDemo(t *testing.T) {
	s := NewServer(DefaultServerConfig())
	defer s.Close()
	lmp, err := os.ReadFile(filepath.Join("..", "..", "testdata", "doom-demos", "freedoom1-DEMO4.lmp"))
	if err != nil {
		t.Fatal(err)
	}
	rec := wdDo(t, s, "POST", "/api/demos?wad=freedoom1.wad", lmp)
	if rec.Code != 201 {
		t.Fatalf("post: %d %s", rec.Code, rec.Body)
	}
	id := rec.Body.String()[7:71]
	rec = wdDo(t, s, "GET", "/api/demos/"+id, nil)
	if rec.Code != 200 || string(rec.Body.Bytes()) != string(lmp) || rec.Header().Get("X-Demo-Wad") != "freedoom1.wad" {
		t.Fatalf("get: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}
