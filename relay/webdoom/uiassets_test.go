package webdoom

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// uiTree writes a WebDoom tree for /api/ui-assets: the given WADs in
// wads/lib and a manifest.
func uiTree(t *testing.T, wads map[string][]byte, manifest string) string {
	t.Helper()
	dir := t.TempDir()
	lib := filepath.Join(dir, "wads", "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range wads {
		if err := os.WriteFile(filepath.Join(lib, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "wads", "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type uiDoc struct {
	Lumps  map[string]string
	Titles map[string]struct{ Pic, Pal string }
}

func getUI(t *testing.T, s *Server) (int, string, uiDoc) {
	t.Helper()
	rec := wdDo(t, s, "GET", "/api/ui-assets", nil)
	var doc uiDoc
	if rec.Code == 200 {
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("ui-assets JSON: %v", err)
		}
		if rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-store" ||
			rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) {
			t.Fatalf("ui-assets headers %v", rec.Header())
		}
	}
	return rec.Code, rec.Body.String(), doc
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestUIAssetsFreedoom serves /api/ui-assets from Debian's Freedoom WADs:
// exactly the menu's lumps of doom.wad with the bytes at the directory's
// offsets, and titles for an IWAD, a PWAD taking its picture and palette
// from its base, but none for a patch, a group member, a missing file or
// an entry lacking a lump.
func TestUIAssetsFreedoom(t *testing.T) {
	doom, doom2 := freedoom(t, "freedoom1.wad"), freedoom(t, "freedoom2.wad")
	titleOwn := map[string]bool{"TITLEPIC": true, "PLAYPAL": true}
	pwadPic := makeWAD("PWAD", wadLump{"TITLEPIC", []byte("sigil's own picture")}, wadLump{"E5M1", []byte("map")})
	wads := map[string][]byte{
		"doom.wad":   doom,
		"doom2.wad":  doom2,
		"sigil.wad":  makeWAD("PWAD", wadLump{"E5M1", []byte("map")}),
		"pic.wad":    pwadPic,
		"tnt31.wad":  makeWAD("PWAD", wadLump{"TITLEPIC", []byte("p")}, wadLump{"PLAYPAL", []byte("q")}),
		"attack.wad": makeWAD("PWAD", wadLump{"TITLEPIC", []byte("p")}, wadLump{"PLAYPAL", []byte("q")}),
		"lone.wad":   makeWAD("PWAD", wadLump{"TITLEPIC", []byte("no palette, no base")}),
		"junk.wad":   []byte("not a wad at all"),
	}
	manifest := `{"generated":"test","wads":[
		{"file":"doom.wad","title":"Freedoom"},
		{"file":"doom2.wad","title":"Freedoom 2"},
		{"file":"sigil.wad","base":"doom.wad"},
		{"file":"pic.wad","base":"doom2.wad"},
		{"file":"tnt31.wad","base":"doom2.wad","patch":true},
		{"file":"attack.wad","base":"doom2.wad","group":"master"},
		{"file":"lone.wad"},
		{"file":"junk.wad","base":"doom.wad"},
		{"file":"missing.wad","base":"doom.wad"},
		{"file":"../doom.wad"},
		{"file":"doom.wad","base":"missing.wad","patch":0,"group":""}
	]}`
	s := NewServer(ServerConfig{Dir: uiTree(t, wads, manifest)})
	defer s.Close()
	code, body, doc := getUI(t, s)
	if code != 200 {
		t.Fatalf("ui-assets: %d %.200s", code, body)
	}
	// Lumps: exactly the wanted ones doom.wad holds, bytes as read by hand.
	hand := wadByHand(t, doom, uiLumps)
	if len(hand) != 67 {
		t.Errorf("freedoom1.wad holds %d of the 67 UI lumps", len(hand))
	}
	got := map[string][]byte{}
	for name, v := range doc.Lumps {
		got[name], _ = base64.StdEncoding.DecodeString(v)
	}
	if !maps.EqualFunc(got, hand, bytes.Equal) {
		t.Errorf("lumps: got %d names, want %d", len(got), len(hand))
	}
	// Keys in directory order, as WebDoom's JavaScript writes them.
	if i, j := strings.Index(body, `"PLAYPAL"`), strings.Index(body, `"titles"`); i < 0 || i > j {
		t.Errorf("PLAYPAL at %d, titles at %d", i, j)
	}
	// Titles.
	own1, own2 := wadByHand(t, doom, titleOwn), wadByHand(t, doom2, titleOwn)
	want := map[string]struct{ Pic, Pal string }{
		"doom.wad":  {b64(own1["TITLEPIC"]), b64(own1["PLAYPAL"])},
		"doom2.wad": {b64(own2["TITLEPIC"]), b64(own2["PLAYPAL"])},
		"sigil.wad": {b64(own1["TITLEPIC"]), b64(own1["PLAYPAL"])},
		"pic.wad":   {b64([]byte("sigil's own picture")), b64(own2["PLAYPAL"])},
	}
	if !maps.Equal(doc.Titles, want) {
		names := slices.Sorted(maps.Keys(doc.Titles))
		t.Errorf("titles for %v, want doom.wad doom2.wad sigil.wad pic.wad", names)
	}

	// No IWAD: 404 with WebDoom's body.
	bare := NewServer(ServerConfig{Dir: uiTree(t, map[string][]byte{"sigil.wad": wads["sigil.wad"]}, `{"wads":[]}`)})
	defer bare.Close()
	if code, body, _ := getUI(t, bare); code != 404 || body != "no IWAD available" {
		t.Errorf("no IWAD: %d %q", code, body)
	}
}

// TestUIAssetsCache: the document is built once and rebuilt when the
// manifest or the IWAD changes (modification time or size), or when a
// higher IWAD appears; a lying IWAD answers 404 and never crashes.
func TestUIAssetsCache(t *testing.T) {
	pal := bytes.Repeat([]byte{1, 2, 3}, 256)
	iwad := makeWAD("IWAD", wadLump{"PLAYPAL", pal}, wadLump{"TITLEPIC", []byte("pic")}, wadLump{"M_DOOM", []byte("logo")})
	dir := uiTree(t, map[string][]byte{"doom2.wad": iwad}, `{"wads":[]}`)
	s := NewServer(ServerConfig{Dir: dir})
	defer s.Close()
	_, first, doc := getUI(t, s)
	if len(doc.Lumps) != 2 || len(doc.Titles) != 0 {
		t.Fatalf("first: %s", first)
	}
	if _, again, _ := getUI(t, s); again != first {
		t.Fatal("unchanged tree, different document")
	}
	b1 := s.files.ui.body
	getUI(t, s)
	if &s.files.ui.body[0] != &b1[0] {
		t.Fatal("unchanged tree: document built again")
	}
	// The manifest changes: titles appear.
	man := filepath.Join(dir, "wads", "manifest.json")
	os.WriteFile(man, []byte(`{"wads":[{"file":"doom2.wad"}]}`), 0o644)
	os.Chtimes(man, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	if _, _, doc := getUI(t, s); len(doc.Titles) != 1 {
		t.Fatalf("after the manifest changed: %d titles", len(doc.Titles))
	}
	// doom.wad appears and heads the list; it lies about its directory.
	lying := makeWAD("IWAD", wadLump{"PLAYPAL", pal})
	lying[9] = 0x7f // directory far past the end
	os.WriteFile(filepath.Join(dir, "wads", "lib", "doom.wad"), lying, 0o644)
	if code, body, _ := getUI(t, s); code != 404 || body != "no IWAD available" {
		t.Fatalf("lying doom.wad: %d %q", code, body)
	}
	// A good doom.wad of another size replaces it.
	os.WriteFile(filepath.Join(dir, "wads", "lib", "doom.wad"), makeWAD("IWAD", wadLump{"M_SKULL1", []byte("skull")}), 0o644)
	if _, body, doc := getUI(t, s); len(doc.Lumps) != 1 || doc.Lumps["M_SKULL1"] != b64([]byte("skull")) {
		t.Fatalf("new doom.wad: %s", body)
	}
}
