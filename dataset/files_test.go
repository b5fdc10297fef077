package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandFilesAndOpenData(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("1 1:2\n2 1:3\n"))
	zw.Close()
	files := map[string][]byte{
		"part-10.svm":    []byte("3 1:4\n"),
		"part-02.svm.gz": gz.Bytes(),
		"part-01.svm":    []byte("0 1:1\n"),
		"part-03.svm.gz": gz.Bytes()[:gz.Len()-9], // truncated: no trailer, data cut
		"empty.svm":      nil,
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ExpandFiles(filepath.Join(dir, "part-*.svm*"), filepath.Join(dir, "part-01.svm"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, filepath.Base(g))
	}
	if strings.Join(names, " ") != "part-01.svm part-02.svm.gz part-03.svm.gz part-10.svm" {
		t.Errorf("expanded to %v", names)
	}
	for _, bad := range []string{filepath.Join(dir, "nothing-*"), dir} {
		if _, err := ExpandFiles(bad); err == nil {
			t.Errorf("%s expanded without error", bad)
		}
	}
	// gzip is read through, whatever the name; a truncated member fails the read
	for name, want := range map[string]string{"part-02.svm.gz": "1 1:2\n2 1:3\n", "part-01.svm": "0 1:1\n", "empty.svm": ""} {
		f, err := OpenData(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	f, err := OpenData(filepath.Join(dir, "part-03.svm.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = ReadSVMLight(f, "part-03.svm.gz", SVMLightOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line == 0 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated gzip: %v, want a positioned unexpected EOF", err)
	}
}
