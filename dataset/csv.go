package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// CSVOptions configures ReadCSV.
type CSVOptions struct {
	// Labels names the label columns; more than one gives a multi-output
	// data set. It may be empty for prediction data, in which case Data.Y is nil.
	Labels []string
	// Qid optionally names a query column; its values are kept as strings.
	Qid string
	// Comma is the field delimiter; zero means ','.
	Comma rune
}

// Column roles in a CSV file; labels use their index 0..t-1.
const (
	roleFeature = -1
	roleQid     = -2
)

// ReadCSV reads a CSV data set from r; name is used in error messages. The
// first record is a header naming the columns. Columns named in opt.Labels
// form Y (in that order), the opt.Qid column gives the query ids, and all
// other columns are features, stored densely in a *mat.Dense X. Header names
// and numeric values may be surrounded by spaces; quoting follows RFC 4180
// (see encoding/csv). Missing values are not supported.
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Data, error) {
	name = inputName(name)
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil reader", ErrOptions, name)
	}
	comma := opt.Comma
	if comma == 0 {
		comma = ','
	}
	if !utf8.ValidRune(comma) || comma == utf8.RuneError || comma == '"' || comma == '\r' || comma == '\n' {
		return nil, fmt.Errorf("%w: %s: invalid delimiter %q", ErrOptions, name, comma)
	}
	cr := csv.NewReader(r)
	cr.Comma = comma
	cr.FieldsPerRecord = -1 // checked here, for better messages
	cr.ReuseRecord = true

	rec, err := cr.Read()
	if err == io.EOF {
		return nil, perr(name, 0, 0, "", ErrEmpty, "empty file (no header row)")
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	headerLine, _ := cr.FieldPos(0)
	header := make([]string, len(rec))
	for j, h := range rec {
		if j == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		header[j] = strings.Clone(strings.TrimSpace(h))
	}
	ncol := len(header)

	roles := make([]int, ncol)
	for j := range roles {
		roles[j] = roleFeature
	}
	find := func(col, what string) (int, error) {
		at := -1
		for j, h := range header {
			if h != col {
				continue
			}
			if at >= 0 {
				return 0, perr(name, headerLine, 0, "", ErrUnknownColumn,
					"%s column %q appears more than once in the header (columns %d and %d)", what, col, at+1, j+1)
			}
			at = j
		}
		if at < 0 {
			return 0, perr(name, headerLine, 0, "", ErrUnknownColumn, "%s column %q not in the header", what, col)
		}
		if roles[at] != roleFeature {
			return 0, fmt.Errorf("%w: %s: column %q used twice as label or query column", ErrOptions, name, col)
		}
		return at, nil
	}
	for k, l := range opt.Labels {
		j, err := find(l, "label")
		if err != nil {
			return nil, err
		}
		roles[j] = k
	}
	qidCol := -1
	if opt.Qid != "" {
		j, err := find(opt.Qid, "qid")
		if err != nil {
			return nil, err
		}
		roles[j] = roleQid
		qidCol = j
	}
	nlab := len(opt.Labels)
	var featNames []string
	for j, h := range header {
		if roles[j] == roleFeature {
			featNames = append(featNames, h)
		}
	}
	nfeat := len(featNames)
	if nfeat == 0 {
		return nil, perr(name, headerLine, 0, "", ErrEmpty, "no feature columns")
	}

	var (
		xs      []float64
		ys      []float64
		labRow  = make([]float64, nlab)
		queries []int
		qnames  []string
		qcode   map[string]int
		m       int
	)
	if qidCol >= 0 {
		qcode = make(map[string]int)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		if len(rec) != ncol {
			line, _ := cr.FieldPos(0)
			if len(rec) > ncol {
				fl, _ := cr.FieldPos(ncol)
				return nil, perr(name, fl, ncol+1, rec[ncol], ErrRagged,
					"row has %d fields, header has %d", len(rec), ncol)
			}
			return nil, perr(name, line, 0, "", ErrRagged, "row has %d fields, header has %d", len(rec), ncol)
		}
		for j, f := range rec {
			role := roles[j]
			if role == roleQid {
				q := strings.TrimSpace(f)
				if q == "" {
					fl, _ := cr.FieldPos(j)
					return nil, perr(name, fl, j+1, f, ErrQid, "empty qid")
				}
				c, ok := qcode[q]
				if !ok {
					c = len(qnames)
					q = strings.Clone(q)
					qcode[q] = c
					qnames = append(qnames, q)
				}
				queries = append(queries, c)
				continue
			}
			v, err := parseValue(strings.TrimSpace(f))
			if err != nil {
				fl, _ := cr.FieldPos(j)
				return nil, &ParseError{File: name, Line: fl, Column: j + 1, Token: clip(f), Err: err}
			}
			if role == roleFeature {
				xs = append(xs, v)
			} else {
				labRow[role] = v
			}
		}
		ys = append(ys, labRow...)
		m++
	}
	if m == 0 {
		return nil, perr(name, headerLine, 0, "", ErrEmpty, "header only, no data rows")
	}
	d := &Data{
		X:            mat.NewDense(m, nfeat, xs),
		FeatureNames: featNames,
		Queries:      queries,
		QueryNames:   qnames,
	}
	if nlab > 0 {
		d.Y = mat.NewDense(m, nlab, ys)
		d.LabelNames = append([]string(nil), opt.Labels...)
	}
	return d, nil
}

// csvError converts an error from encoding/csv into a *ParseError.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrBareQuote) || errors.Is(pe.Err, csv.ErrQuote) {
			return &ParseError{File: name, Line: pe.Line,
				Err: fmt.Errorf("byte %d: %v: %w", pe.Column, pe.Err, ErrSyntax)}
		}
		return readErr(name, pe.Line, pe.Err)
	}
	return readErr(name, 0, err)
}
