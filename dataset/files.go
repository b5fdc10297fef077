package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
)

// ExpandFiles returns the data files named by paths and shell patterns
// (filepath.Match syntax: "dir/part-*.svm.gz"), each pattern's matches sorted
// by name, in the order the patterns are given, without repeats: a file
// named twice — by the same name, or by two (a symbolic link to a shard
// next to it, a hard link, "./a" and "a") — is kept once, under the first
// of its names, so that no shard is read twice. A pattern that matches
// nothing, or a path that is a directory, is an error (ErrEmpty,
// ErrOptions): a shard is never silently missing. O(files · log files).
func ExpandFiles(patterns ...string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	kept := map[int64][]os.FileInfo{} // the files kept by size, for os.SameFile
	for _, pat := range patterns {
		matches, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("%w: pattern %q: %w", ErrOptions, pat, err)
		}
		if len(matches) == 0 {
			if _, err := os.Stat(pat); err != nil {
				return nil, fmt.Errorf("%w: %s: no such file (nor files matching it)", ErrEmpty, pat)
			}
			matches = []string{pat}
		}
		slices.Sort(matches)
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil {
				return nil, err
			}
			if st.IsDir() {
				return nil, fmt.Errorf("%w: %s is a directory, not a data file", ErrOptions, m)
			}
			if seen[m] {
				continue
			}
			seen[m] = true
			if slices.ContainsFunc(kept[st.Size()], func(fi os.FileInfo) bool { return os.SameFile(fi, st) }) {
				continue // another name of a file kept
			}
			kept[st.Size()] = append(kept[st.Size()], st)
			out = append(out, m)
		}
	}
	return out, nil
}

// DataFile is an open data file: plain text, or gzip-compressed text (detected
// by its first two bytes, 1f 8b, whatever its name) decompressed on the fly,
// member after member. Size is the file's size on disk and BytesRead the
// bytes read from disk so far (compressed bytes for gzip), for progress. A
// truncated or corrupt gzip stream fails the read where its data ends, so a
// reader reports the file and the line it reached.
type DataFile struct {
	io.Reader
	Size  int64
	f     *os.File
	count atomic.Int64
}

// OpenData opens the data file at path. O(1).
func OpenData(path string) (*DataFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &DataFile{Size: st.Size(), f: f}
	if d.Reader, err = Decompress(&countingReader{r: f, n: &d.count}); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Decompress returns a reader of r's text: r itself (buffered), or, when r
// starts with the gzip magic bytes 1f 8b, its decompressed members, whose
// errors are *GzipError values (the compressed byte and the line reached).
// O(1).
func Decompress(r io.Reader) (io.Reader, error) {
	return gunzip(bufio.NewReaderSize(r, 256<<10))
}

// BytesRead returns the bytes read from disk so far.
func (d *DataFile) BytesRead() int64 { return d.count.Load() }

// Close closes the file.
func (d *DataFile) Close() error { return d.f.Close() }

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
