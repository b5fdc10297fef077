package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// SVMLightOptions configures ReadSVMLight.
type SVMLightOptions struct {
	// Width, if positive, is the number of features: an index above it is
	// an error. Otherwise the width is the largest index seen.
	Width int
	// Dense makes X a *mat.Dense instead of a *matrix.CSR.
	Dense bool
}

// ReadSVMLight reads an svmlight/libsvm data set from r; name is used in
// error messages. Each non-blank, non-comment line is
//
//	label [qid:Q] index:value ... [# comment]
//
// with 1-based, strictly increasing feature indices, stored as 0-based
// columns. The label may be several comma-separated numbers ("1.5,2,3") for
// multi-output data; every row must then have the same number of labels.
// Either every row has a qid or none has. Y is always set, with LabelNames
// ["label"] (or "label1", "label2", ... for multi-output data).
func ReadSVMLight(r io.Reader, name string, opt SVMLightOptions) (*Data, error) {
	name = inputName(name)
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil reader", ErrOptions, name)
	}
	if opt.Width < 0 {
		return nil, fmt.Errorf("%w: %s: negative width %d", ErrOptions, name, opt.Width)
	}
	var (
		lr        = newLineReader(r)
		labels    []float64
		t         int // labels per row, set by the first row
		indptr    = []int{0}
		indices   []int
		values    []float64
		maxIdx    int
		hasQid    bool
		firstLine int // line of the first data row
		queries   []int
		qnames    []string
		qcode     map[string]int
		m         int
	)
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		line := lr.line
		s = stripComment(s)
		tok, i := nextField(s, 0)
		if tok == "" {
			continue // blank or comment-only line
		}

		// Label(s).
		col := 1
		if strings.IndexByte(tok, ':') >= 0 {
			return nil, perr(name, line, col, tok, ErrSyntax, "missing label (the first field must be the label)")
		}
		n := strings.Count(tok, ",") + 1
		if m == 0 {
			t = n
			firstLine = line
		} else if n != t {
			return nil, perr(name, line, col, tok, ErrRagged,
				"row has %d labels, line %d has %d", n, firstLine, t)
		}
		for rest := tok; ; {
			part := rest
			k := strings.IndexByte(rest, ',')
			if k >= 0 {
				part, rest = rest[:k], rest[k+1:]
			}
			v, err := parseValue(part)
			if err != nil {
				return nil, &ParseError{File: name, Line: line, Column: col, Token: clip(tok), Err: err}
			}
			labels = append(labels, v)
			if k < 0 {
				break
			}
		}

		// Optional qid.
		tok, i = nextField(s, i)
		rowQid := strings.HasPrefix(tok, "qid:")
		if m == 0 {
			hasQid = rowQid
			if hasQid {
				qcode = make(map[string]int)
			}
		} else if rowQid != hasQid {
			if rowQid {
				return nil, perr(name, line, col+1, tok, ErrQid, "qid given, but not on line %d", firstLine)
			}
			return nil, perr(name, line, 0, "", ErrQid, "qid missing, but given on line %d", firstLine)
		}
		if rowQid {
			col++
			q := tok[len("qid:"):]
			if q == "" {
				return nil, perr(name, line, col, tok, ErrQid, "empty qid")
			}
			c, ok := qcode[q]
			if !ok {
				c = len(qnames)
				q = strings.Clone(q)
				qcode[q] = c
				qnames = append(qnames, q)
			}
			queries = append(queries, c)
			tok, i = nextField(s, i)
		}

		// Features.
		prev := 0
		for ; tok != ""; tok, i = nextField(s, i) {
			col++
			k := strings.IndexByte(tok, ':')
			if k < 0 {
				return nil, perr(name, line, col, tok, ErrSyntax, "missing ':' in index:value")
			}
			is, vs := tok[:k], tok[k+1:]
			if is == "qid" {
				return nil, perr(name, line, col, tok, ErrSyntax, "qid must come right after the label")
			}
			idx, err := strconv.Atoi(is)
			if err != nil {
				switch {
				case errors.Is(err, strconv.ErrRange):
					return nil, perr(name, line, col, tok, ErrIndex, "index too large")
				case is == "":
					return nil, perr(name, line, col, tok, ErrSyntax, "missing index")
				default:
					return nil, perr(name, line, col, tok, ErrSyntax, "index not an integer")
				}
			}
			switch {
			case idx <= 0:
				return nil, perr(name, line, col, tok, ErrIndex, "index %d: indices start at 1", idx)
			case idx == prev:
				return nil, perr(name, line, col, tok, ErrIndex, "duplicate index %d", idx)
			case idx < prev:
				return nil, perr(name, line, col, tok, ErrIndex, "index %d not increasing (follows %d)", idx, prev)
			case opt.Width > 0 && idx > opt.Width:
				return nil, perr(name, line, col, tok, ErrIndex, "index %d exceeds width %d", idx, opt.Width)
			}
			v, err := parseValue(vs)
			if err != nil {
				return nil, &ParseError{File: name, Line: line, Column: col, Token: clip(tok), Err: err}
			}
			indices = append(indices, idx-1)
			values = append(values, v)
			prev = idx
		}
		maxIdx = max(maxIdx, prev)
		indptr = append(indptr, len(indices))
		m++
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if m == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no data rows")
	}
	c := maxIdx
	if opt.Width > 0 {
		c = opt.Width
	}
	d := &Data{
		Y:          mat.NewDense(m, t, labels),
		LabelNames: labelNames(t),
		Queries:    queries,
		QueryNames: qnames,
	}
	if !opt.Dense {
		d.X = &matrix.CSR{R: m, C: c, Indptr: indptr, Indices: indices, Values: values}
		return d, nil
	}
	if c == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no features, cannot build a dense matrix (set a width)")
	}
	if c > math.MaxInt/m {
		return nil, perr(name, 0, 0, "", ErrIndex, "dense matrix of %d×%d is too large", m, c)
	}
	x := make([]float64, m*c)
	for r := 0; r < m; r++ {
		row := x[r*c : (r+1)*c]
		for k := indptr[r]; k < indptr[r+1]; k++ {
			row[indices[k]] = values[k]
		}
	}
	d.X = mat.NewDense(m, c, x)
	return d, nil
}

// labelNames returns the svmlight label names for t outputs.
func labelNames(t int) []string {
	if t == 1 {
		return []string{"label"}
	}
	names := make([]string, t)
	for k := range names {
		names[k] = "label" + strconv.Itoa(k+1)
	}
	return names
}
