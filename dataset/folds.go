package dataset

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ReadFolds reads cross-validation folds for a data set of m rows from r;
// name is used in error messages. Each non-blank line is one fold: its
// whitespace-separated 0-based row indices. Text after '#' is a comment.
// Every index must be an integer in [0,m) and appear at most once in the
// whole file. A file without folds is an error (ErrEmpty); a line longer
// than the line bound (EnvMaxLine), or gzip input beyond the decompression
// budget (EnvMaxDecompressed), is ErrLimit.
func ReadFolds(r io.Reader, name string, m int) ([][]int, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, m); err != nil {
		return nil, err
	}
	var (
		lr        = newLineReader(r)
		seen      = make([]int, m) // fold number + 1, 0 if unseen
		folds     [][]int
		foldLines []int
	)
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		s = stripComment(s)
		var fold []int
		col := 0
		for tok, i := nextField(s, 0); tok != ""; tok, i = nextField(s, i) {
			col++
			idx, err := parseIndex(name, lr.line, col, tok, m)
			if err != nil {
				return nil, err
			}
			if f := seen[idx]; f != 0 {
				if f == len(folds)+1 {
					return nil, perr(name, lr.line, col, tok, ErrDuplicate, "index %d repeated within the fold", idx)
				}
				return nil, perr(name, lr.line, col, tok, ErrDuplicate,
					"index %d already in fold %d (line %d)", idx, f-1, foldLines[f-1])
			}
			seen[idx] = len(folds) + 1
			fold = append(fold, idx)
		}
		if fold != nil {
			folds = append(folds, fold)
			foldLines = append(foldLines, lr.line)
		}
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if len(folds) == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no folds")
	}
	return folds, nil
}

// ReadIndices reads whitespace-separated 0-based row indices for a data set
// of m rows from r, spread over any number of lines; name is used in error
// messages. Text after '#' is a comment. Every index must be an integer in
// [0,m) and appear at most once. A file without indices is an error
// (ErrEmpty); a line longer than the line bound (EnvMaxLine), or gzip input
// beyond the decompression budget (EnvMaxDecompressed), is ErrLimit. The
// indices are returned in file order.
func ReadIndices(r io.Reader, name string, m int) ([]int, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, m); err != nil {
		return nil, err
	}
	var (
		lr   = newLineReader(r)
		seen = make([]int, m) // line of first occurrence, 0 if unseen
		out  []int
	)
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		s = stripComment(s)
		col := 0
		for tok, i := nextField(s, 0); tok != ""; tok, i = nextField(s, i) {
			col++
			idx, err := parseIndex(name, lr.line, col, tok, m)
			if err != nil {
				return nil, err
			}
			if l := seen[idx]; l != 0 {
				return nil, perr(name, lr.line, col, tok, ErrDuplicate, "index %d already given on line %d", idx, l)
			}
			seen[idx] = lr.line
			out = append(out, idx)
		}
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if len(out) == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no indices")
	}
	return out, nil
}

func checkIndexArgs(r io.Reader, name string, m int) error {
	if r == nil {
		return fmt.Errorf("%w: %s: nil reader", ErrOptions, name)
	}
	if m < 0 {
		return fmt.Errorf("%w: %s: negative row count %d", ErrOptions, name, m)
	}
	return nil
}

// parseIndex parses a row index in [0,m).
func parseIndex(name string, line, col int, tok string, m int) (int, error) {
	idx, err := strconv.Atoi(tok)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, perr(name, line, col, tok, ErrOutOfRange, "index outside [0,%d)", m)
		}
		return 0, perr(name, line, col, tok, ErrSyntax, "index not an integer")
	}
	if idx < 0 || idx >= m {
		return 0, perr(name, line, col, tok, ErrOutOfRange, "index %d outside [0,%d)", idx, m)
	}
	return idx, nil
}
