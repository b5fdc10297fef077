package dataset

import (
	"io"
)

// Pairs are the lines of a pairs file: labelled (or, for prediction,
// unlabelled) pairs of a row object and a column object, in file order.
type Pairs struct {
	Rows, Cols []int
	// Labels are the pairs' labels; nil when the file has none.
	Labels []float64
	// Lines are the 1-based line numbers the pairs came from.
	Lines []int
}

// Len returns the number of pairs.
func (p *Pairs) Len() int { return len(p.Rows) }

// PairsOptions say what a pairs file indexes and whether it carries labels.
type PairsOptions struct {
	// Rows and Cols are the numbers of row and column objects; indices must
	// lie in [0,Rows) and [0,Cols).
	Rows, Cols int
	// Unlabelled accepts "row col" lines (all of them, or none) as well as
	// "row col label" (prediction input).
	Unlabelled bool
}

// ReadPairs reads one pair per non-blank line, "row col label" with
// whitespace-separated fields: 0-based indices into the row and column
// objects and a finite decimal label (with PairsOptions.Unlabelled, lines
// "row col" are accepted too, but a file mixes no labelled and unlabelled
// lines). Text after '#' is a comment. Pairs may come in any order. Errors
// are *ParseError values naming the file, the line and the field: an index
// that is not an integer (ErrSyntax) or lies outside its range
// (ErrOutOfRange), a label that is not a number (ErrSyntax) or not finite
// (ErrNonFinite), a missing or extra field (ErrRagged), a pair listed twice
// (ErrDuplicate, naming both lines), a file without pairs (ErrEmpty), and a
// line longer than the line bound (EnvMaxLine) or gzip input beyond the
// decompression budget (EnvMaxDecompressed) (ErrLimit).
// Time O(size of the file); memory O(n) for n pairs.
func ReadPairs(r io.Reader, name string, opt PairsOptions) (*Pairs, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, opt.Rows); err != nil {
		return nil, err
	}
	if err := checkIndexArgs(r, name, opt.Cols); err != nil {
		return nil, err
	}
	lr := newLineReader(r)
	out := &Pairs{}
	seen := make(map[int64]int) // row·Cols + col → line
	labelled := -1              // unknown, 0 no, 1 yes
	for {
		fields, ok := lr.fields()
		if !ok {
			break
		}
		if len(fields) == 0 {
			continue
		}
		want := "\"row col label\""
		if opt.Unlabelled {
			want = "\"row col\" or \"row col label\""
		}
		switch {
		case len(fields) == 1:
			return nil, perr(name, lr.line, 1, fields[0], ErrRagged, "1 field, want %s", want)
		case len(fields) == 2 && !opt.Unlabelled:
			return nil, perr(name, lr.line, 2, fields[1], ErrRagged, "no label, want %s", want)
		case len(fields) > 3:
			return nil, perr(name, lr.line, 4, fields[3], ErrRagged, "%d fields, want %s", len(fields), want)
		}
		row, err := parseIndex(name, lr.line, 1, fields[0], opt.Rows)
		if err != nil {
			return nil, err
		}
		col, err := parseIndex(name, lr.line, 2, fields[1], opt.Cols)
		if err != nil {
			return nil, err
		}
		has := 0
		if len(fields) == 3 {
			has = 1
		}
		if labelled >= 0 && has != labelled {
			first := out.Lines[0]
			if has == 1 {
				return nil, perr(name, lr.line, 3, fields[2], ErrRagged, "a label, but line %d has none: label every pair or none", first)
			}
			return nil, perr(name, lr.line, 2, fields[1], ErrRagged, "no label, but line %d has one: label every pair or none", first)
		}
		labelled = has
		key := int64(row)*int64(opt.Cols) + int64(col)
		if prev, ok := seen[key]; ok {
			return nil, perr(name, lr.line, 1, fields[0], ErrDuplicate, "pair (%d, %d) already on line %d", row, col, prev)
		}
		seen[key] = lr.line
		if has == 1 {
			v, err := parseValue(fields[2])
			if err != nil {
				return nil, &ParseError{File: name, Line: lr.line, Column: 3, Token: clip(fields[2]), Err: err}
			}
			out.Labels = append(out.Labels, v)
		}
		out.Rows, out.Cols, out.Lines = append(out.Rows, row), append(out.Cols, col), append(out.Lines, lr.line)
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if out.Len() == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no pairs")
	}
	return out, nil
}
