package dataset

import (
	"bufio"
	"fmt"
	"io"
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
// write: it is an Outputs set of that one file, committed at once (see
// Outputs.Commit). A regular file (or a new one) is written to a temporary
// file in its directory, synced and renamed over it, so readers see either the
// old file or the complete new one; if write or any step fails the temporary
// file is removed and path is left untouched. A symbolic link is followed: its
// target is replaced and the link kept. A device or FIFO (/dev/null, a named
// pipe) is written in place, and its write and close errors (ENOSPC from
// /dev/full) are returned. A new file gets mode 0644; a replaced file keeps its
// permissions. When path is "-" the output goes to standard output instead.
// Errors read "writing PATH: cause".
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	if write == nil {
		return fmt.Errorf("%w: WriteFileAtomic: nil write function", ErrOptions)
	}
	if path == "" {
		return fmt.Errorf("%w: WriteFileAtomic: empty path", ErrOptions)
	}
	var o Outputs
	o.Add("", path, write)
	return o.Commit()
}
