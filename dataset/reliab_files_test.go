//go:build unix

package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReliabExpandFilesSameFile is issue 20 item 12: a symbolic link to a
// shard next to it matched the pattern and was read twice (duplicates were
// removed by name only). A file named twice — by a symbolic link, a hard
// link, or "./a" and "a" — is kept once, under its first name; distinct
// files of the same content stay.
func TestReliabExpandFilesSameFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("part-00.svm", "1 1:1\n")
	b := write("part-01.svm", "2 1:2\n")
	c := write("part-03.svm", "2 1:2\n") // the same bytes as b: another shard
	if err := os.Symlink(a, filepath.Join(dir, "part-02.svm")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(b, filepath.Join(dir, "part-04.svm")); err != nil {
		t.Fatal(err)
	}
	got, err := ExpandFiles(filepath.Join(dir, "part-*.svm"), dir+"/./part-00.svm")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a, b, c}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	// the link named first is the name kept
	got, err = ExpandFiles(filepath.Join(dir, "part-02.svm"), a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "part-02.svm")}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}
