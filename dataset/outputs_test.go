package dataset

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// dirNames lists a directory, to see that no temporary file is left.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOutputsCommitTogether(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("old a"), 0o600)
	var value string // computed after Add, as a command would
	var o Outputs
	o.Add("--a", a, func(w io.Writer) error { _, err := io.WriteString(w, value); return err })
	o.Add("--b", b, writeString("new b"))
	o.Add("--unset", "", writeString("never"))
	if o.Len() != 2 {
		t.Fatalf("Len %d", o.Len())
	}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	value = "new a"
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if readT(t, a) != "new a" || readT(t, b) != "new b" {
		t.Error("contents")
	}
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file has mode %v, want its old 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(b); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file has mode %v, want 0644", fi.Mode().Perm())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"a.txt", "b.txt"}) {
		t.Errorf("directory holds %v", names)
	}
	if err := o.Commit(); !errors.Is(err, ErrOptions) {
		t.Errorf("second Commit: %v", err)
	}
}

// One failing output leaves every old file as it was and no temporary file.
func TestOutputsFailureKeepsOldFiles(t *testing.T) {
	boom := errors.New("boom")
	for _, failAt := range []string{"first", "second", "panic"} {
		t.Run(failAt, func(t *testing.T) {
			dir := t.TempDir()
			a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
			os.WriteFile(a, []byte("old a"), 0o644)
			os.WriteFile(b, []byte("old b"), 0o644)
			var o Outputs
			fail := func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("partial ", 20000))
				if failAt == "panic" {
					panic(boom)
				}
				return boom
			}
			first, second := writeString("new a"), fail
			if failAt == "first" {
				first, second = fail, writeString("new b")
			}
			o.Add("--a", a, first)
			o.Add("--b", b, second)
			o.Add("--c", c, writeString("new c"))
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = r.(error)
					}
				}()
				err = o.Commit()
			}()
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			var oe *OutputError
			if failAt != "panic" && (!errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "--")) {
				t.Errorf("error %q does not name the output", err)
			}
			if readT(t, a) != "old a" || readT(t, b) != "old b" {
				t.Error("an old file was replaced")
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"a.txt", "b.txt"}) {
				t.Errorf("directory holds %v", names)
			}
		})
	}
}

func TestOutputsCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	hard := filepath.Join(dir, "hard.txt")
	if err := os.Link(file, hard); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	os.Symlink("f.txt", link)
	newLink := filepath.Join(dir, "new-link.txt")
	os.Symlink("new.txt", newLink) // dangling: its target does not exist yet
	cases := []struct {
		name  string
		paths [][2]string // flag, path
		want  error       // nil: Check passes
		in    string      // in the message
	}{
		{"fine", [][2]string{{"--a", file}, {"--b", filepath.Join(dir, "new.txt")}, {"--c", "-"}}, nil, ""},
		{"missing directory", [][2]string{{"--out", filepath.Join(dir, "no", "x.txt")}}, ErrOutputPath, "--out " + filepath.Join(dir, "no", "x.txt") + ": "},
		{"a directory", [][2]string{{"--model", dir}}, ErrOutputPath, "is a directory"},
		{"parent is a file", [][2]string{{"--out", filepath.Join(file, "x")}}, ErrOutputPath, "--out"},
		{"same path twice", [][2]string{{"--a", file}, {"--b", file}}, ErrSameFile, "--b " + file},
		{"same file through ..", [][2]string{{"--a", file}, {"--b", filepath.Join(dir, "..", filepath.Base(dir), "f.txt")}}, ErrSameFile, "--a"},
		{"same file through a link", [][2]string{{"--a", link}, {"--b", file}}, ErrSameFile, "--a " + link},
		{"same file by hard link", [][2]string{{"--a", hard}, {"--b", file}}, ErrSameFile, "--a"},
		{"new file twice, once by a dangling link", [][2]string{{"--a", newLink}, {"--b", filepath.Join(dir, "new.txt")}}, ErrSameFile, "--a"},
		{"stdout twice", [][2]string{{"--a", "-"}, {"--b", "-"}}, ErrSameFile, "standard output"},
		{"/dev/null twice", [][2]string{{"--a", os.DevNull}, {"--b", os.DevNull}}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var o Outputs
			for _, p := range c.paths {
				o.Add(p[0], p[1], writeString("x"))
			}
			err := o.Check()
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var oe *OutputError
			if !errors.Is(err, c.want) || !errors.As(err, &oe) || !strings.Contains(err.Error(), c.in) {
				t.Errorf("err = %v, want %v mentioning %q", err, c.want, c.in)
			}
		})
	}
	if names := dirNames(t, dir); len(names) != 4 {
		t.Errorf("Check left files behind: %v", names)
	}
}

func TestOutputsCheckInputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.svm")
	os.WriteFile(data, []byte("1 1:1\n"), 0o644)
	hard := filepath.Join(dir, "hard.svm")
	os.Link(data, hard)
	link := filepath.Join(dir, "link.svm")
	os.Symlink(data, link)
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, data)
	if err != nil {
		rel = data
	}
	for _, out := range []string{data, hard, link, rel, filepath.Join(dir, ".", "data.svm")} {
		var o Outputs
		o.Add("--out", out, writeString("x"))
		err := o.CheckInputs("", "-", filepath.Join(dir, "model.json"), data)
		if !errors.Is(err, ErrSameFile) || !strings.HasPrefix(err.Error(), "--out "+out+": ") || !strings.Contains(err.Error(), data) {
			t.Errorf("--out %s over the input: %v", out, err)
		}
	}
	var o Outputs
	o.Add("--out", filepath.Join(dir, "pred.txt"), writeString("x"))
	o.Add("--report", "-", writeString("x"))
	if err := o.CheckInputs(data, link, "-"); err != nil {
		t.Error(err)
	}
	// A new output against an input given through a link to a missing file.
	os.Symlink("future.txt", filepath.Join(dir, "future-link"))
	var o2 Outputs
	o2.Add("--out", filepath.Join(dir, "future.txt"), writeString("x"))
	if err := o2.CheckInputs(filepath.Join(dir, "future-link")); !errors.Is(err, ErrSameFile) {
		t.Errorf("output that the input's link names: %v", err)
	}
	if readT(t, data) != "1 1:1\n" {
		t.Error("the input changed")
	}
}

// Regression (reliability issue C): a symbolic link was replaced by a regular
// file. The link is kept and its target replaced atomically.
func TestOutputsFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "target.txt")
	os.WriteFile(target, []byte("old"), 0o640)
	link := filepath.Join(dir, "link.txt")
	os.Symlink(filepath.Join("sub", "target.txt"), link) // relative
	chain := filepath.Join(dir, "chain.txt")
	os.Symlink("link.txt", chain)
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink(filepath.Join(sub, "created.txt"), dangling)
	var o Outputs
	o.Add("--a", chain, writeString("new"))
	o.Add("--b", dangling, writeString("created"))
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, chain, dangling} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	if readT(t, target) != "new" || readT(t, chain) != "new" || readT(t, filepath.Join(sub, "created.txt")) != "created" {
		t.Error("targets not written")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want 0640", fi.Mode().Perm())
	}
	if names := dirNames(t, sub); !slices.Equal(names, []string{"created.txt", "target.txt"}) {
		t.Errorf("sub holds %v", names)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	var o2 Outputs
	o2.Add("--out", loop, writeString("x"))
	if err := o2.Check(); !errors.Is(err, ErrOutputPath) {
		t.Errorf("link loop: %v", err)
	}
}

// Regression (reliability issue C): --out /dev/null was replaced by a regular
// file as root, and refused (a temporary file in /dev) as a user. Devices are
// written in place.
func TestOutputsDevNull(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	var o Outputs
	o.Add("--out", os.DevNull, writeString(strings.Repeat("x", 100000)))
	o.Add("--model", file, writeString("model"))
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
	}
	if readT(t, file) != "model" {
		t.Error("the regular output")
	}
	// WriteFileAtomic writes through as well.
	if err := WriteFileAtomic(os.DevNull, writeString("x")); err != nil {
		t.Error(err)
	}
}

func TestOutputsStdout(t *testing.T) {
	var buf strings.Builder
	o := Outputs{Stdout: &buf}
	o.Add("--out", "-", writeString("to stdout\n"))
	if err := o.Commit(); err != nil || buf.String() != "to stdout\n" {
		t.Errorf("%q %v", buf.String(), err)
	}
	if err := WriteFileAtomic("", writeString("x")); !errors.Is(err, ErrOptions) {
		t.Errorf("empty path: %v", err)
	}
}
