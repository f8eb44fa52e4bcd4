package replay

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestImports: the package's code imports of this module only codec,
// codec/inputs, game and world (no server, client or root: a replay is
// read and simulated again without a match).
func TestImports(t *testing.T) {
	const module = "github.com/rewindnet/rewind"
	allowed := map[string]bool{module + "/codec": true, module + "/codec/inputs": true, module + "/game": true, module + "/world": true}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), e.Name(), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		files++
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if (p == module || strings.HasPrefix(p, module+"/")) && !allowed[p] {
				t.Errorf("%s imports %s", e.Name(), p)
			}
		}
	}
	if files < 3 {
		t.Fatalf("read %d files of the package", files)
	}
}
