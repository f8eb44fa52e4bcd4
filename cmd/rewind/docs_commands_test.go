package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docCommand is a `rewind …` command line a doc shows: where, and its
// arguments after `rewind`.
type docCommand struct {
	where string
	args  []string
}

// placeholders are the docs' stand-ins for values, each replaced by one
// of its kind before the line is parsed (a flag's value must parse: -
// -until-tick T would not).
var placeholders = map[string]string{
	"CODE": "K3F9QX", "T": "600", "N": "2", "M": "4", "R": "60", "D": "1s", "X": "2",
	"KEY": "0123456789abcdef", "ADDR": "127.0.0.1:0", "FILE": "x.rwreplay", "URL": "ws://127.0.0.1:8080/rooms",
}

// goRun is a `go run ./cmd/rewind` prefix (with go's flags), read as
// `rewind`.
var goRun = regexp.MustCompile(`^go run (-\S+ )*\./cmd/rewind `)

// docCommands extracts the `rewind …` (or `go run ./cmd/rewind …`)
// command lines of a Markdown file's code (fenced blocks and indented
// lines), with `\` continuations joined,
// `# comments` cut, `[--optional FLAG V]` brackets opened (their flags
// are checked too) and placeholders replaced.
func docCommands(t *testing.T, file string) []docCommand {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var cmds []docCommand
	fenced := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		s := goRun.ReplaceAllString(strings.TrimPrefix(strings.TrimSpace(l), "$ "), "rewind ")
		if !(fenced || strings.HasPrefix(l, "    ")) || !strings.HasPrefix(s, "rewind ") {
			continue
		}
		at := fmt.Sprintf("%s:%d", filepath.ToSlash(file), i+1)
		for strings.HasSuffix(s, "\\") && i+1 < len(lines) {
			i++
			s = strings.TrimSuffix(s, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if c := strings.Index(s, " #"); c >= 0 {
			s = s[:c]
		}
		s = strings.NewReplacer("[", " ", "]", " ").Replace(s)
		args := strings.Fields(s)[1:]
		for j, a := range args {
			if v, ok := placeholders[a]; ok {
				args[j] = v
			}
		}
		cmds = append(cmds, docCommand{at, args})
	}
	return cmds
}

// parseOnly runs a rewind command line under onlyParse: nil when its
// flags parsed against the command's real flag set.
func parseOnly(args []string) error {
	onlyParse = true
	defer func() { onlyParse = false }()
	var errOut strings.Builder
	c, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("no command %q", args[0])
	}
	err := c.Run(args[1:], io.Discard, &errOut)
	if errors.Is(err, errOnlyParsed) {
		return nil
	}
	return fmt.Errorf("%v %s", err, strings.TrimSpace(errOut.String()))
}

// TestDocsCommands: every `rewind …` command line in the code of the
// README, view/README.md, docs/*.md and the examples' and games'
// READMEs parses against its command's real flag set (issue 42 item 4:
// a doc's command runs as shown); `rewind bench` lines are rewind-bench's
// flags and are left to it. Inline `rewind …` spans in prose are
// fragments (a flag's name without its value) and are not checked.
func TestDocsCommands(t *testing.T) {
	files := []string{"../../README.md", "../../view/README.md"}
	for _, pat := range []string{"../../docs/*.md", "../../examples/*/README.md", "../../examples/*/*/README.md", "../../games/*/README.md"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		for _, c := range docCommands(t, f) {
			if c.args[0] == "bench" {
				continue
			}
			n++
			if err := parseOnly(c.args); err != nil {
				t.Errorf("%s: rewind %s: %v", c.where, strings.Join(c.args, " "), err)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d command lines found in %d files: the extraction is broken", n, len(files))
	}
	t.Logf("%d command lines parsed", n)
	if err := parseOnly([]string{"play", "--headless", "--jion", "K3F9QX"}); err == nil {
		t.Error("a misspelt flag parsed: the check cannot fail")
	}
}

// TestDemoHintsParse: the command the demo shows for joining its room,
// on stderr ("join with …") and on its page (--no-page's signpost: the
// playing page's footer has the same words), parses against play's flags,
// with a game's flags (ships at another tick rate) as the demo adds them.
func TestDemoHintsParse(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	code, _, stderr := runCmd("demo", "--http", "127.0.0.1:0", "--no-page", "--game", "ships", "--tick-rate", "30", "--duration", "1ms")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	_, hint, ok := strings.Cut(stderr, "join with ")
	if !ok {
		t.Fatalf("no join line: %s", stderr)
	}
	hint, _, _ = strings.Cut(hint, "\n")
	args := strings.Fields(hint)[1:]
	if err := parseOnly(args); err != nil || !strings.Contains(hint, "--game ships --tick-rate 30") {
		t.Errorf("the demo's join line %q: %v", hint, err)
	}
	// The signpost page, served while the demo runs.
	page := signpost(t)
	re := regexp.MustCompile(`<pre>(rewind [^<]*)</pre>`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no command on the page:\n%s", page)
	}
	if err := parseOnly(strings.Fields(m[1])[1:]); err != nil {
		t.Errorf("the page's command %q: %v", m[1], err)
	}
}

// signpost fetches a --no-page ships demo's page at / (a demo of its
// own, stopped once fetched).
func signpost(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		demo(ctx, []string{"--http", "127.0.0.1:0", "--no-page", "--game", "ships", "--log-level", "warn"}, w, io.Discard)
		w.Close()
	}()
	defer func() { cancel(); go io.Copy(io.Discard, r); <-done }()
	sc := bufio.NewScanner(r)
	url := ""
	for url == "" && sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "url="); ok {
			url = u
		}
	}
	if url == "" {
		t.Fatal("the demo printed no url=")
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
