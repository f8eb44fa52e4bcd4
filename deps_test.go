package rewind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The light core: what a game that never hosts a room links (and the
// many-matches runtime, package host). These
// packages (with their subpackages where "/..." says so; package
// transport and transport/udp, not transport/webrtc) must not depend on a heavy
// dependency; docs/benchmarks.md, "Dependencies of a minimal game", has
// the figures.
var lightPackages = []string{
	".", "./examples/tiny", "./examples/udpmatch", "./examples/replay", "./examples/paint/...", "./games/...", "./replay", "./world/...", "./codec/...", "./game/...",
	"./server/...", "./client/...", "./transport", "./transport/udp", "./fixed", "./host", "./draw",
}

// enginePackages must not depend on package fixed: it is the games' math,
// and the engine itself never computes with fixed point.
var enginePackages = []string{
	".", "./replay", "./world/...", "./codec/...", "./game/...", "./server/...", "./client/...", "./transport/...",
}

// heavyPrefixes are the import paths the light core must not depend on:
// WebRTC and TURN (pion), WebSocket and prometheus.
var heavyPrefixes = []string{
	"github.com/pion/", "github.com/coder/websocket", "github.com/prometheus/",
}

// prometheusPrefix may only be imported by packages under cmd/ and
// internal/.
const prometheusPrefix = "github.com/prometheus/"

// listedPackage is the part of `go list -json` these checks read.
type listedPackage struct {
	ImportPath   string
	DepOnly      bool
	Deps         []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// goList runs `go list -json` with args in the module's root and decodes
// its stream of packages.
func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	return goListIn(t, ".", nil, args...)
}

// goListIn runs `go list -json` with args in dir, with env added to the
// environment, and decodes its stream of packages.
func goListIn(t *testing.T, dir string, env []string, args ...string) []listedPackage {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command in GOROOT/bin or PATH: %v", err)
		}
	}
	cmd := exec.Command(goBin, append([]string{"list", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s (in %s, %s): %v\n%s", strings.Join(args, " "), dir, strings.Join(env, " "), err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// heavyDeps returns "pkg -> dep, ..." (the first three, and how many
// more) for every package named on go list's command line (not DepOnly)
// that depends on a heavy package.
func heavyDeps(pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		if p.DepOnly {
			continue
		}
		var heavy []string
		for _, d := range p.Deps {
			if hasAnyPrefix(d, heavyPrefixes) {
				heavy = append(heavy, d)
			}
		}
		if len(heavy) > 3 {
			heavy = append(heavy[:3], fmt.Sprintf("and %d more", len(heavy)-3))
		}
		if len(heavy) > 0 {
			bad = append(bad, p.ImportPath+" -> "+strings.Join(heavy, ", "))
		}
	}
	return bad
}

// prometheusImporters returns "pkg imports dep" for every package outside
// cmd/ and internal/ whose code or tests import prometheus.
func prometheusImporters(module string, pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "internal/") {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if strings.HasPrefix(imp, prometheusPrefix) {
				bad = append(bad, p.ImportPath+" imports "+imp)
			}
		}
	}
	return bad
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestLightCore: the engine's core, the root package and a minimal game
// depend on no pion, WebSocket or prometheus package, and only cmd/ and
// internal/ import prometheus.
func TestLightCore(t *testing.T) {
	pkgs := goList(t, append([]string{"-deps"}, lightPackages...)...)
	named := 0
	for _, p := range pkgs {
		if !p.DepOnly {
			named++
		}
	}
	if named < len(lightPackages) {
		t.Fatalf("go list named %d packages for %d patterns", named, len(lightPackages))
	}
	for _, b := range heavyDeps(pkgs) {
		t.Errorf("light package depends on a heavy one: %s", b)
	}
	for _, b := range prometheusImporters("github.com/rewindnet/rewind", goList(t, "./...")) {
		t.Errorf("prometheus outside cmd/ and internal/: %s", b)
	}
}

// TestFixedOnlyForGames: no engine package depends on package fixed.
func TestFixedOnlyForGames(t *testing.T) {
	const fixed = "github.com/rewindnet/rewind/fixed"
	for _, p := range goList(t, append([]string{"-deps"}, enginePackages...)...) {
		if !p.DepOnly && slices.Contains(p.Deps, fixed) {
			t.Errorf("engine package %s depends on %s", p.ImportPath, fixed)
		}
	}
}

// TestLightCoreChecksCanFail feeds the checks the shape of the tree before
// the split (package transport holding WebRTC, relay exporting WebDoom
// metrics), to see that they report it.
func TestLightCoreChecksCanFail(t *testing.T) {
	const m = "github.com/rewindnet/rewind"
	pkgs := []listedPackage{
		{ImportPath: m + "/examples/tiny", Deps: []string{m, m + "/transport", "github.com/pion/dtls/v3", "github.com/pion/ice/v4",
			"github.com/pion/sctp", "github.com/pion/webrtc/v4", "github.com/zeebo/xxh3"}},
		{ImportPath: m + "/transport", Deps: []string{"github.com/coder/websocket"}},
		{ImportPath: "github.com/pion/webrtc/v4", DepOnly: true, Deps: []string{"github.com/pion/ice/v4"}},
		{ImportPath: m + "/world", Deps: []string{"github.com/zeebo/xxh3"}},
	}
	want := []string{
		m + "/examples/tiny -> github.com/pion/dtls/v3, github.com/pion/ice/v4, github.com/pion/sctp, and 1 more",
		m + "/transport -> github.com/coder/websocket",
	}
	if got := heavyDeps(pkgs); !slices.Equal(got, want) {
		t.Errorf("heavyDeps = %q, want %q", got, want)
	}
	imps := []listedPackage{
		{ImportPath: m + "/relay", Imports: []string{"github.com/prometheus/client_golang/prometheus"}},
		{ImportPath: m + "/rooms", XTestImports: []string{"github.com/prometheus/client_golang/prometheus/promhttp"}},
		{ImportPath: m + "/cmd/rewind", Imports: []string{"github.com/prometheus/client_golang/prometheus"}},
		{ImportPath: m + "/internal/metrics", Imports: []string{"github.com/prometheus/client_golang/prometheus"}},
	}
	want = []string{
		m + "/relay imports github.com/prometheus/client_golang/prometheus",
		m + "/rooms imports github.com/prometheus/client_golang/prometheus/promhttp",
	}
	if got := prometheusImporters(m, imps); !slices.Equal(got, want) {
		t.Errorf("prometheusImporters = %q, want %q", got, want)
	}
}

// faceImports are the packages of this module an example may import: the
// face (the root, world, replay, the room side rooms), the game registry
// and game libraries (an example's game registers itself: examples/paint),
// an example's own packages, and draw (a game's view: its draw list and controls); and the relay (its hub and protocol), which examples/room
// starts in-process as `rewind relay` would.
var faceImports = []string{"", "/world", "/replay", "/rooms", "/games", "/games/", "/examples/", "/draw", "/relay", "/relay/roomproto"}

// outsideFace returns "pkg imports dep" for every import (code and
// tests) of a package of module that is not one of faceImports.
func outsideFace(module string, pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(imp, module)
			if !slices.ContainsFunc(faceImports, func(f string) bool {
				return rel == f || strings.HasSuffix(f, "/") && strings.HasPrefix(rel, f)
			}) {
				bad = append(bad, p.ImportPath+" imports "+imp)
			}
		}
	}
	return bad
}

// TestExamplesUseTheFace: the examples import of this module only the
// face (the root, world, replay, rooms), the games and the relay.
func TestExamplesUseTheFace(t *testing.T) {
	const m = "github.com/rewindnet/rewind"
	pkgs := goList(t, "./examples/...")
	if len(pkgs) < 3 {
		t.Fatalf("go list found %d examples", len(pkgs))
	}
	for _, b := range outsideFace(m, pkgs) {
		t.Errorf("an example reaches past the face: %s", b)
	}
	bad := outsideFace(m, []listedPackage{{ImportPath: m + "/examples/x",
		Imports: []string{"fmt", m, m + "/world", m + "/games/sand", m + "/transport"}, XTestImports: []string{m + "/internal/testgame"}}})
	if want := []string{m + "/examples/x imports " + m + "/transport", m + "/examples/x imports " + m + "/internal/testgame"}; !slices.Equal(bad, want) {
		t.Errorf("outsideFace = %q, want %q", bad, want)
	}
}

// The view module's programs: the browser page's three (js/wasm) and the
// desktop window. What they link of the relay is its client side
// (relay/roomclient): no Redis client, no prometheus, and no package of
// this module that imports pion/turn (the relay's TURN server). pion/turn
// itself stays in the lists: pion/webrtc imports pion/ice, which imports
// pion/turn/v5, in a js/wasm build too. The page's drawing program, which
// every tab downloads before it draws, links no WebRTC, WebSocket or
// relay client at all (not: prefixes no dependency may have): those are
// the relay program's, which a tab fetches only to host or to claim.
var viewPrograms = []struct {
	pkg string
	env []string
	not []string
}{
	{"./page", []string{"GOOS=js", "GOARCH=wasm"}, []string{"github.com/pion/", "github.com/coder/websocket", "github.com/rewindnet/rewind/relay/"}},
	{"./page/relay", []string{"GOOS=js", "GOARCH=wasm"}, nil},
	{"./page/worker", []string{"GOOS=js", "GOARCH=wasm"}, nil},
	{"./window", nil, nil},
}

// viewForbidden are substrings no dependency of a view program may have.
var viewForbidden = []string{"redis", "prometheus"}

// turnPrefix is what no package of this module that a view program links
// may import.
const turnPrefix = "github.com/pion/turn"

// viewDepsProblems returns what is wrong with the `go list -deps` of a
// view program: every listed package path that contains a forbidden
// word, and "pkg imports dep" for every package of module among them
// that imports pion/turn.
func viewDepsProblems(module string, pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		for _, w := range viewForbidden {
			if strings.Contains(p.ImportPath, w) {
				bad = append(bad, p.ImportPath+" contains "+w)
			}
		}
		if p.ImportPath != module && !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, turnPrefix) {
				bad = append(bad, p.ImportPath+" imports "+imp)
			}
		}
	}
	return bad
}

// TestViewLight: the page's programs and the desktop window of the view
// module link no Redis client, no prometheus, and no package of ours that
// imports pion/turn (docs/architecture.md, issue 27); the page's drawing
// program no WebRTC, WebSocket or relay client (issue 28).
func TestViewLight(t *testing.T) {
	const m = "github.com/rewindnet/rewind"
	for _, prog := range viewPrograms {
		pkgs := goListIn(t, "view", prog.env, "-deps", prog.pkg)
		ours := 0
		for _, p := range pkgs {
			if strings.HasPrefix(p.ImportPath, m+"/") {
				ours++
			}
		}
		if ours == 0 {
			t.Fatalf("view %s: go list -deps lists no package of %s (%d packages)", prog.pkg, m, len(pkgs))
		}
		for _, b := range viewDepsProblems(m, pkgs) {
			t.Errorf("view %s (%s): %s", prog.pkg, strings.Join(prog.env, " "), b)
		}
		for _, p := range pkgs {
			for _, not := range prog.not {
				if strings.HasPrefix(p.ImportPath, not) {
					t.Errorf("view %s (%s) links %s", prog.pkg, strings.Join(prog.env, " "), p.ImportPath)
				}
			}
		}
	}
}

// TestViewLightChecksCanFail feeds the check the page's list before the
// relay's split (rooms linking relay, which imported go-redis and
// pion/turn) and a made-up prometheus dependency, to see that it reports
// them, and that pion/ice importing pion/turn passes.
func TestViewLightChecksCanFail(t *testing.T) {
	const m = "github.com/rewindnet/rewind"
	pkgs := []listedPackage{
		{ImportPath: "github.com/pion/turn/v5"},
		{ImportPath: "github.com/pion/ice/v4", Imports: []string{"github.com/pion/turn/v5"}},
		{ImportPath: "github.com/redis/go-redis/v9"},
		{ImportPath: m + "/relay", Imports: []string{"github.com/pion/turn/v5", "github.com/redis/go-redis/v9"}},
		{ImportPath: m + "/rooms", Imports: []string{m + "/relay"}},
		{ImportPath: "github.com/prometheus/client_golang/prometheus"},
		{ImportPath: "view/page", Imports: []string{m + "/rooms"}},
	}
	want := []string{
		"github.com/redis/go-redis/v9 contains redis",
		m + "/relay imports github.com/pion/turn/v5",
		"github.com/prometheus/client_golang/prometheus contains prometheus",
	}
	if got := viewDepsProblems(m, pkgs); !slices.Equal(got, want) {
		t.Errorf("viewDepsProblems = %q, want %q", got, want)
	}
	if got := viewDepsProblems(m, pkgs[:2]); len(got) != 0 {
		t.Errorf("pion/ice importing pion/turn reported: %q", got)
	}
}

// parentInternal returns "pkg imports dep" for every import, tests'
// included, of a package of module's internal tree.
func parentInternal(module string, pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if strings.HasPrefix(imp, module+"/internal/") {
				bad = append(bad, p.ImportPath+" imports "+imp)
			}
		}
	}
	return bad
}

// TestViewImportsNoParentInternal: the view module (its tests included,
// natively and for js/wasm) uses the engine through its public packages
// only (issue 27): none of its packages imports an internal package of
// the parent module.
func TestViewImportsNoParentInternal(t *testing.T) {
	const m = "github.com/rewindnet/rewind"
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		pkgs := goListIn(t, "view", env, "./...")
		if len(pkgs) < 5 {
			t.Fatalf("go list ./... in view (%s) found %d packages", strings.Join(env, " "), len(pkgs))
		}
		for _, b := range parentInternal(m, pkgs) {
			t.Errorf("view (%s): %s", strings.Join(env, " "), b)
		}
	}
	pkgs := []listedPackage{{ImportPath: m + "/view/seat", Imports: []string{m + "/view/internal/sandmatch", m + "/replay"},
		TestImports: []string{m + "/internal/simmatch"}, XTestImports: []string{m + "/internal/replayrun"}}}
	want := []string{m + "/view/seat imports " + m + "/internal/simmatch", m + "/view/seat imports " + m + "/internal/replayrun"}
	if got := parentInternal(m, pkgs); !slices.Equal(got, want) {
		t.Errorf("parentInternal = %q, want %q", got, want)
	}
}

// rigWords are the words of an internal package's path that say it is a
// rig (a benchmark, load or attack harness, a test game, a redis-server
// starter): none may be linked into the rewind server binary.
var rigWords = []string{"bench", "attack", "loadbot", "testgame", "redisproc"}

// TestServerBinaryLinksNoRig: `go list -deps ./cmd/rewind` holds no
// package under internal/ whose path names a rig (they are
// cmd/rewind-bench's).
func TestServerBinaryLinksNoRig(t *testing.T) {
	var deps []string
	for _, p := range goList(t, "-deps", "./cmd/rewind") {
		deps = append(deps, p.ImportPath)
	}
	for _, d := range rigsIn(deps) {
		t.Errorf("cmd/rewind links the rig %s", d)
	}
	if rigsIn([]string{"github.com/rewindnet/rewind/internal/tools/bench/fleet"}) == nil {
		t.Error("rigsIn finds no rig in a bench package's path")
	}
}

// rigsIn returns the packages of deps under this module's internal/ whose
// path names one of rigWords.
func rigsIn(deps []string) []string {
	var rigs []string
	for _, d := range deps {
		rest, ok := strings.CutPrefix(d, "github.com/rewindnet/rewind/internal/")
		if !ok {
			continue
		}
		for _, w := range rigWords {
			if strings.Contains(rest, w) {
				rigs = append(rigs, d)
				break
			}
		}
	}
	return rigs
}
