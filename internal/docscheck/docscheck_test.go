package docscheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository root, two levels up from this package.
const root = "../.."

// scriptRef is a script named in a document.
var scriptRef = regexp.MustCompile(`scripts/[A-Za-z0-9_.-]+\.sh`)

// docs returns README.md and docs/*.md with their text.
func docs(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(root, "README.md"))
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(b)
	}
	return out
}

// scripts returns the scripts/*.sh files, relative to the root.
func scripts(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "scripts", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	if len(out) == 0 {
		t.Fatal("no scripts/*.sh")
	}
	return out
}

// TestNamedScriptsExist: every scripts/….sh a document names is a file.
func TestNamedScriptsExist(t *testing.T) {
	for doc, text := range docs(t) {
		for _, ref := range scriptRef.FindAllString(text, -1) {
			if _, err := os.Stat(filepath.Join(root, ref)); err != nil {
				t.Errorf("%s names %s, which does not exist", doc, ref)
			}
		}
	}
	// scripts/README.md names them bare, in code spans
	b, err := os.ReadFile(filepath.Join(root, "scripts", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range listed.FindAllStringSubmatch(string(b), -1) {
		if _, err := os.Stat(filepath.Join(root, "scripts", m[1])); err != nil {
			t.Errorf("scripts/README.md lists %s, which does not exist", m[1])
		}
	}
}

// listed is a script in scripts/README.md's table: a code span opening a row.
var listed = regexp.MustCompile("(?m)^\\| `([A-Za-z0-9_.-]+\\.sh)")

// TestScriptsAreDocumented: every scripts/*.sh is named by README.md or a
// docs/*.md page (the figures it regenerates say so) and listed in
// scripts/README.md.
func TestScriptsAreDocumented(t *testing.T) {
	all := docs(t)
	var named []string
	for _, text := range all {
		named = append(named, scriptRef.FindAllString(text, -1)...)
	}
	index, err := os.ReadFile(filepath.Join(root, "scripts", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scripts(t) {
		if !slices.Contains(named, s) {
			t.Errorf("%s is named by no document (README.md, docs/*.md): name it where its figures are", s)
		}
		if !slices.ContainsFunc(listed.FindAllStringSubmatch(string(index), -1), func(m []string) bool { return "scripts/"+m[1] == s }) {
			t.Errorf("%s is not listed in scripts/README.md", s)
		}
	}
}

// TestScriptsParse runs `bash -n` on every script and checks the
// conventions: strict mode and a QUICK=1 mode.
func TestScriptsParse(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash not found")
		}
		t.Skip("bash not found")
	}
	for _, s := range scripts(t) {
		p := filepath.Join(root, s)
		if out, err := exec.Command(bash, "-n", p).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", s, err, out)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.HasPrefix(text, "#!/usr/bin/env bash\n#") {
			t.Errorf("%s: want #!/usr/bin/env bash and a header comment", s)
		}
		if !strings.Contains(text, "set -euo pipefail") {
			t.Errorf("%s: no set -euo pipefail", s)
		}
		if !strings.Contains(text, "QUICK") {
			t.Errorf("%s: no QUICK=1 mode", s)
		}
	}
}

// measuredTables are the documents whose tables hold measured figures; the
// tables listed in exempt (by their header row) hold none.
var measuredTables = []string{"docs/performance.md", "docs/larger-than-memory.md"}

var exempt = []string{
	"| CV | measure | passes (after a first one for `--standardize`) |", // which passes each CV needs
}

// TestTablesNameTheirScript: every table of measured figures has a script
// named in the 12 lines before it or the 4 after it.
func TestTablesNameTheirScript(t *testing.T) {
	all := docs(t)
	for _, doc := range measuredTables {
		lines := strings.Split(all[doc], "\n")
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "|") {
				continue
			}
			start := i
			for i < len(lines) && strings.HasPrefix(lines[i], "|") {
				i++
			}
			if slices.Contains(exempt, lines[start]) {
				continue
			}
			near := strings.Join(lines[max(0, start-12):min(len(lines), i+4)], "\n")
			if !scriptRef.MatchString(near) {
				t.Errorf("%s:%d: the table %q names no scripts/….sh that regenerates it", doc, start+1, lines[start])
			}
		}
	}
}
