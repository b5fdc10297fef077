package rlskit

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDoc: the module root has a package comment (what go doc
// github.com/rlskit/rlskit prints) and it names every top-level package
// directory of the library (those with non-test Go files; cmd, internal
// and scripts aside) as "name: what it does", so a new package cannot go
// unlisted.
func TestPackageDoc(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil || !strings.HasPrefix(f.Doc.Text(), "Package rlskit ") {
		t.Fatal("doc.go has no package comment starting \"Package rlskit \"")
	}
	doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == "cmd" || name == "internal" || name == "scripts" || strings.HasPrefix(name, ".") {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(name, "*.go"))
		code := false
		for _, g := range files {
			code = code || !strings.HasSuffix(g, "_test.go")
		}
		if code && !strings.Contains(doc, name+": ") {
			t.Errorf("the package doc does not describe %s (\"%s: …\")", name, name)
		}
	}
}
