package dataset

import (
	"io"
)

// Preference is one line of a preference file: row I is preferred over row J,
// with a magnitude (≥ 0, default 1) and an importance weight (> 0, default 1).
type Preference struct {
	I, J      int
	Magnitude float64
	Weight    float64
}

// ReadPreferences reads a preference graph over m rows: one edge per non-blank
// line, "i j [magnitude [weight]]" with 0-based row indices, i preferred over j.
// Text after '#' is a comment. Errors name the line and column: indices that
// are not integers or outside [0,m), i = j (a self-loop), a magnitude that is
// negative or not finite, a weight that is not > 0, extra fields, a file
// with no edges, and a line longer than the line bound (EnvMaxLine) or gzip
// input beyond the decompression budget (EnvMaxDecompressed) (ErrLimit).
// O(size of the file).
func ReadPreferences(r io.Reader, name string, m int) ([]Preference, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, m); err != nil {
		return nil, err
	}
	lr := newLineReader(r)
	var out []Preference
	for {
		fields, ok := lr.fields()
		if !ok {
			break
		}
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 {
			return nil, perr(name, lr.line, 1, fields[0], ErrSyntax, "want \"i j [magnitude [weight]]\"")
		}
		if len(fields) > 4 {
			return nil, perr(name, lr.line, 5, fields[4], ErrSyntax, "more than 4 fields")
		}
		p := Preference{Magnitude: 1, Weight: 1}
		var err error
		if p.I, err = parseIndex(name, lr.line, 1, fields[0], m); err != nil {
			return nil, err
		}
		if p.J, err = parseIndex(name, lr.line, 2, fields[1], m); err != nil {
			return nil, err
		}
		if p.I == p.J {
			return nil, perr(name, lr.line, 2, fields[1], ErrSyntax, "row %d preferred over itself", p.I)
		}
		if len(fields) > 2 {
			v, err := parseValue(fields[2])
			if err != nil {
				return nil, &ParseError{File: name, Line: lr.line, Column: 3, Token: clip(fields[2]), Err: err}
			}
			if v < 0 {
				return nil, perr(name, lr.line, 3, fields[2], ErrSyntax, "negative magnitude %v", v)
			}
			p.Magnitude = v
		}
		if len(fields) > 3 {
			v, err := parseValue(fields[3])
			if err != nil {
				return nil, &ParseError{File: name, Line: lr.line, Column: 4, Token: clip(fields[3]), Err: err}
			}
			if v <= 0 {
				return nil, perr(name, lr.line, 4, fields[3], ErrSyntax, "weight %v is not > 0", v)
			}
			p.Weight = v
		}
		out = append(out, p)
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if len(out) == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no preferences")
	}
	return out, nil
}
