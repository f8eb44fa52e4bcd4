package webdoom

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// GET /api/ui-assets: the lumps WebDoom's DOOM-style menu draws itself
// with, and each game's title picture for the game picker, as one JSON
// document:
//
//	{"lumps":  {"PLAYPAL": base64, "M_SKULL1": …, "M_DOOM": …, "STCFN033": …},
//	 "titles": {"doom.wad": {"pic": base64 TITLEPIC, "pal": base64 PLAYPAL}, …}}
//
// lumps come from the first of uiIWADs in wads/lib/; titles from every
// manifest entry with neither "patch" nor "group", each lump from the
// entry's own file or else from its "base" file. The document is built
// once and kept; it is rebuilt when wads/manifest.json or the IWAD it was
// read from changes modification time or size, or when another IWAD of
// uiIWADs comes to head the list (WAD files are immutable while served:
// WebDoom caches them for a year).

// uiIWADs are the IWADs /api/ui-assets takes its lumps from, the first
// present winning (doom.wad's M_DOOM is the classic logo).
var uiIWADs = []string{"doom.wad", "doom2.wad", "tnt.wad", "plutonia.wad"}

// uiLumps are the lumps of the menu: palette, skull cursor, logo and the
// HUD font STCFN033 … STCFN095.
var uiLumps = func() map[string]bool {
	m := map[string]bool{"PLAYPAL": true, "M_SKULL1": true, "M_SKULL2": true, "M_DOOM": true}
	for c := 33; c <= 95; c++ {
		m[fmt.Sprintf("STCFN%03d", c)] = true
	}
	return m
}()

var uiTitleLumps = map[string]bool{"TITLEPIC": true, "PLAYPAL": true}

// uiMaxTitles caps the base64 bytes of all titles together; entries past
// it are left out (a manifest naming thousands of WADs).
const uiMaxTitles = 64 << 20

// uiAssets builds and caches the /api/ui-assets document.
type uiAssets struct {
	lib      *os.Root // wads/lib
	manifest string   // path of wads/manifest.json
	log      *slog.Logger

	mu    sync.Mutex
	key   string // what the cached document was built from
	body  []byte // nil: no IWAD
	built bool
}

// fileKey identifies a file's version by modification time and size.
func fileKey(st fs.FileInfo, err error) string {
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", st.ModTime().UnixNano(), st.Size())
}

// get returns the document, or nil when no IWAD is present.
func (u *uiAssets) get() []byte {
	iwad, iwadKey := "", ""
	for _, name := range uiIWADs {
		if st, err := u.lib.Stat(name); err == nil && st.Mode().IsRegular() {
			iwad, iwadKey = name, fileKey(st, nil)
			break
		}
	}
	key := iwad + "@" + iwadKey + " manifest@" + fileKey(os.Stat(u.manifest))
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.built && key == u.key {
		return u.body
	}
	start := time.Now()
	u.body, u.key, u.built = u.build(iwad), key, true
	u.log.Info("webdoom: built /api/ui-assets", "iwad", iwad, "bytes", len(u.body), "took", time.Since(start).Round(time.Microsecond))
	return u.body
}

// lumpsOf reads the wanted lumps of the WAD name in wads/lib.
func (u *uiAssets) lumpsOf(name string, want map[string]bool) (map[string][]byte, []string, error) {
	if !fs.ValidPath(name) {
		return nil, nil, fmt.Errorf("wad name %q", name)
	}
	f, err := u.lib.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a file", name)
	}
	return readWADLumps(f, st.Size(), want)
}

func (u *uiAssets) build(iwad string) []byte {
	if iwad == "" {
		return nil
	}
	lumps, order, err := u.lumpsOf(iwad, uiLumps)
	if err != nil {
		u.log.Warn("webdoom: /api/ui-assets: IWAD unreadable", "wad", iwad, "err", err)
		return nil
	}
	// Keys in WebDoom's order (JavaScript keeps insertion order): lumps in
	// directory order, titles in manifest order.
	var b bytes.Buffer
	b.WriteString(`{"lumps":{`)
	for i, name := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s:"%s"`, uiJSONString(name), base64.StdEncoding.EncodeToString(lumps[name]))
	}
	b.WriteString(`},"titles":{`)
	titles, tOrder := u.titles()
	for i, file := range tOrder {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s:%s`, uiJSONString(file), titles[file])
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// titles returns each title's JSON value by file, and the files in order.
func (u *uiAssets) titles() (map[string]string, []string) {
	out, order := map[string]string{}, []string(nil)
	raw, err := os.ReadFile(u.manifest)
	if err != nil {
		return out, nil
	}
	var m struct {
		Wads []json.RawMessage `json:"wads"`
	}
	if json.Unmarshal(raw, &m) != nil {
		u.log.Warn("webdoom: /api/ui-assets: wads/manifest.json is not JSON; no titles")
		return out, nil
	}
	total := 0
	for _, rawEntry := range m.Wads {
		var w map[string]any
		d := json.NewDecoder(bytes.NewReader(rawEntry))
		d.UseNumber()
		if d.Decode(&w) != nil || w == nil {
			continue
		}
		file, ok := w["file"].(string)
		if !ok || wire.JSTruthy(w["patch"]) || wire.JSTruthy(w["group"]) {
			continue
		}
		own, _, err := u.lumpsOf(file, uiTitleLumps)
		if err != nil {
			continue
		}
		base := map[string][]byte{}
		if wire.JSTruthy(w["base"]) {
			name, ok := w["base"].(string)
			if !ok {
				continue
			}
			if base, _, err = u.lumpsOf(name, uiTitleLumps); err != nil {
				continue
			}
		}
		pic, ok1 := own["TITLEPIC"]
		if !ok1 {
			pic, ok1 = base["TITLEPIC"]
		}
		pal, ok2 := own["PLAYPAL"]
		if !ok2 {
			pal, ok2 = base["PLAYPAL"]
		}
		if !ok1 || !ok2 {
			continue
		}
		v := fmt.Sprintf(`{"pic":"%s","pal":"%s"}`, base64.StdEncoding.EncodeToString(pic), base64.StdEncoding.EncodeToString(pal))
		if total += len(v); total > uiMaxTitles {
			u.log.Warn("webdoom: /api/ui-assets: titles over the cap; the rest left out", "cap", uiMaxTitles)
			break
		}
		if _, dup := out[file]; !dup {
			order = append(order, file)
		}
		out[file] = v
	}
	return out, order
}

// uiJSONString encodes s as a JSON string without Go's HTML escaping, as
// JSON.stringify writes it.
func uiJSONString(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// newUIAssets returns the builder for the tree dir, or nil when the tree
// has no wads/lib.
func newUIAssets(dir string, log *slog.Logger) *uiAssets {
	lib, err := os.OpenRoot(filepath.Join(dir, "wads", "lib"))
	if err != nil {
		return nil
	}
	return &uiAssets{lib: lib, manifest: filepath.Join(dir, "wads", "manifest.json"), log: log}
}
