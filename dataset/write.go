package dataset

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// WritePredictions writes P to w, one line per row with the outputs separated
// by tabs. Each value is written in the shortest form that parses back to the
// same float64 (strconv.FormatFloat(v, 'g', -1, 64)).
func WritePredictions(w io.Writer, P *mat.Dense) error {
	if w == nil || P == nil {
		return fmt.Errorf("%w: WritePredictions: nil writer or matrix", ErrOptions)
	}
	r, c := P.Dims()
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, 32*c+1)
	for i := 0; i < r; i++ {
		buf = buf[:0]
		for j, v := range P.RawRowView(i) {
			if j > 0 {
				buf = append(buf, '\t')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFileAtomic creates or replaces the file at path with the output of
// write, so that readers see either the old file or the complete new one. It
// writes (through a buffer) to a temporary file in the same directory, syncs
// it to disk and renames it over path. If write or any step fails, the
// temporary file is removed and path is left untouched. A new file gets mode
// 0644; a replaced file keeps its permissions. When path is "-" the output
// goes to standard output instead.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	if write == nil {
		return fmt.Errorf("%w: WriteFileAtomic: nil write function", ErrOptions)
	}
	if path == "-" {
		bw := bufio.NewWriterSize(os.Stdout, 64<<10)
		if err := write(bw); err != nil {
			return fmt.Errorf("writing <stdout>: %w", err)
		}
		return bw.Flush()
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%w: %s is a directory", ErrOptions, path)
		}
		mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed, done := false, false
	defer func() { // also runs if write panics
		if !done {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	done = true
	// Make the rename durable; not all systems can sync a directory.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
