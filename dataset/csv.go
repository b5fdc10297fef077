package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// CSVOptions configures ReadCSV and the CSV side of ReadChunks.
type CSVOptions struct {
	// Labels names the label columns; more than one gives a multi-output
	// data set. It may be empty for prediction data, in which case Data.Y is nil.
	Labels []string
	// Qid optionally names a query column; its values are kept as strings.
	Qid string
	// Comma is the field delimiter; zero chooses it from the header line:
	// the one of comma, tab and semicolon that splits it into the most
	// fields outside quotes (comma on a tie, or when there is none).
	Comma rune
	// LabelsFromHeader, when set and Labels is empty, is called once with the
	// header's column names (surrounding spaces and any byte order mark
	// removed, as the reader sees them) and returns the label columns to use
	// (none when it returns nil). A caller that streams its input — predict,
	// taking a model's output names as labels when the header has them — so
	// chooses the labels by the very header the reader parses, whatever its
	// length or quoting.
	LabelsFromHeader func(header []string) []string
}

// Column roles in a CSV file; labels use their index 0..t-1.
const (
	roleFeature = -1
	roleQid     = -2
)

// ReadCSV reads a CSV data set from r; name is used in error messages. The
// first record is a header naming the columns; a UTF-8 byte order mark before
// it is skipped. Columns named in opt.Labels form Y (in that order), the
// opt.Qid column gives the query ids, and all other columns are features,
// stored densely in a *mat.Dense X. The delimiter is opt.Comma, or else
// detected from the header (comma, semicolon or tab). gzip-compressed input is
// decompressed on the fly. Header names and numeric values may be
// surrounded by spaces; quoting follows RFC 4180 (see encoding/csv); empty
// lines are skipped, and any other line is a record (a line of spaces is a
// record with an empty value, an error). Values are decimal numbers: no
// underscores, hexadecimal, NaN or infinities. Missing values are not
// supported. A record (a line, or the lines of a quoted field) longer than
// the line bound (EnvMaxLine, 64 MiB by default; it costs up to three times
// that, in encoding/csv's buffers), or gzip input decompressing beyond the
// decompression budget (EnvMaxDecompressed), is an error naming the line
// (ErrLimit).
//
// ReadCSV is ReadChunks with a single chunk: both apply the same rules.
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Data, error) {
	name = inputName(name)
	p, err := newCSVParser(r, name, opt)
	if err != nil {
		return nil, err
	}
	return readWhole(p)
}

// skipBOM discards a leading UTF-8 byte order mark.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
}

// csvParser reads a CSV data set one record at a time. The header, column
// roles and query codes persist for the whole input; the values of the rows
// read since the last take are held until take.
type csvParser struct {
	name       string
	cr         *csv.Reader
	rl         *recordLimit
	gz         *gzipText // the decompressor of gzip input, nil for plain input
	headerLine int
	ncol       int
	roles      []int
	labels     []string
	featNames  []string
	qidCol     int
	svmHint    bool // the header looks like svmlight data
	qcode      map[string]int
	qnames     []string

	xs, ys  []float64
	labRow  []float64
	queries []int
	m       int // rows since the last take
	total   int // rows read
}

// newCSVParser checks the options and reads the header.
func newCSVParser(r io.Reader, name string, opt CSVOptions) (*csvParser, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil reader", ErrOptions, name)
	}
	comma := opt.Comma
	if comma != 0 && (!utf8.ValidRune(comma) || comma == utf8.RuneError || comma == '"' || comma == '\r' || comma == '\n' || comma == '\ufeff') {
		return nil, fmt.Errorf("%w: %s: invalid delimiter %q", ErrOptions, name, comma)
	}
	lim, err := readLimits()
	if err != nil {
		return nil, readErr(name, 0, err)
	}
	br, gz, err := openText(r)
	if err != nil {
		return nil, readErr(name, 0, err)
	}
	skipBOM(br)
	if comma == 0 {
		comma = detectDelimiter(br)
	}
	rl := &recordLimit{r: br, lim: lim, startLine: 1}
	cr := csv.NewReader(rl)
	cr.Comma = comma
	cr.FieldsPerRecord = -1 // checked here, for better messages
	cr.ReuseRecord = true

	p := &csvParser{name: name, cr: cr, rl: rl, gz: gz, qidCol: -1}
	rec, err := p.read()
	if err == io.EOF {
		return nil, perr(name, 0, 0, "", ErrEmpty, "empty file (no header row)")
	}
	if err != nil {
		return nil, err
	}
	p.headerLine, _ = cr.FieldPos(0)
	p.svmHint = looksLikeSVMLight(strings.Join(rec, string(comma)))
	header := make([]string, len(rec))
	for j, h := range rec {
		header[j] = strings.Clone(strings.TrimSpace(h))
	}
	p.ncol = len(header)
	labels := opt.Labels
	if len(labels) == 0 && opt.LabelsFromHeader != nil {
		labels = opt.LabelsFromHeader(slices.Clone(header))
	}
	p.labels = slices.Clone(labels)

	p.roles = make([]int, p.ncol)
	for j := range p.roles {
		p.roles[j] = roleFeature
	}
	find := func(col, what string) (int, error) {
		at := -1
		for j, h := range header {
			if h != col {
				continue
			}
			if at >= 0 {
				return 0, perr(name, p.headerLine, 0, "", ErrUnknownColumn,
					"%s column %q appears more than once in the header (columns %d and %d)", what, col, at+1, j+1)
			}
			at = j
		}
		if at < 0 {
			return 0, p.hint(perr(name, p.headerLine, 0, "", ErrUnknownColumn, "%s column %q not in the header", what, col))
		}
		if p.roles[at] != roleFeature {
			return 0, fmt.Errorf("%w: %s: column %q used twice as label or query column", ErrOptions, name, col)
		}
		return at, nil
	}
	for k, l := range p.labels {
		j, err := find(l, "label")
		if err != nil {
			return nil, err
		}
		p.roles[j] = k
	}
	if opt.Qid != "" {
		j, err := find(opt.Qid, "qid")
		if err != nil {
			return nil, err
		}
		p.roles[j] = roleQid
		p.qidCol = j
		p.qcode = make(map[string]int)
	}
	for j, h := range header {
		if p.roles[j] == roleFeature {
			p.featNames = append(p.featNames, h)
		}
	}
	if len(p.featNames) == 0 {
		return nil, perr(name, p.headerLine, 0, "", ErrEmpty, "no feature columns")
	}
	p.labRow = make([]float64, len(p.labels))
	return p, nil
}

// next reads one record into the pending rows; false at the end of input.
func (p *csvParser) next() (bool, error) {
	cr, name := p.cr, p.name
	rec, err := p.read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(rec) != p.ncol {
		line, _ := cr.FieldPos(0)
		if len(rec) > p.ncol {
			fl, _ := cr.FieldPos(p.ncol)
			return false, perr(name, fl, p.ncol+1, rec[p.ncol], ErrRagged,
				"row has %d fields, header has %d", len(rec), p.ncol)
		}
		return false, perr(name, line, 0, "", ErrRagged, "row has %d fields, header has %d", len(rec), p.ncol)
	}
	held := int64(8 * len(rec)) // features, labels and query code
	for j, f := range rec {
		role := p.roles[j]
		if role == roleQid {
			q := strings.TrimSpace(f)
			if q == "" {
				fl, _ := cr.FieldPos(j)
				return false, perr(name, fl, j+1, f, ErrQid, "empty qid")
			}
			c, ok := p.qcode[q]
			if !ok {
				c = len(p.qnames)
				q = strings.Clone(q)
				p.qcode[q] = c
				p.qnames = append(p.qnames, q)
				held += int64(len(q)) + qidCost
			}
			p.queries = append(p.queries, c)
			continue
		}
		v, err := parseValue(strings.TrimSpace(f))
		if err != nil {
			fl, _ := cr.FieldPos(j)
			pe := &ParseError{File: name, Line: fl, Column: j + 1, Token: clip(f), Err: err}
			if p.total == 0 {
				pe = p.hint(pe)
			}
			return false, pe
		}
		if role == roleFeature {
			p.xs = append(p.xs, v)
		} else {
			p.labRow[role] = v
		}
	}
	if p.gz != nil {
		line, _ := cr.FieldPos(0)
		if err := p.gz.charge(held, line); err != nil {
			return false, &ParseError{File: name, Line: line, Err: err}
		}
	}
	p.ys = append(p.ys, p.labRow...)
	p.m++
	p.total++
	return true, nil
}

func (p *csvParser) pending() int { return p.m }

// hint adds to an error a note that the header looks like svmlight data,
// when it does.
func (p *csvParser) hint(err *ParseError) *ParseError {
	if p.svmHint {
		err.Err = fmt.Errorf("%w (the file looks like svmlight: add --format svmlight)", err.Err)
	}
	return err
}

// take returns the pending rows as a data set and starts a new one.
func (p *csvParser) take() (*Data, error) {
	d := &Data{
		X:            mat.NewDense(p.m, len(p.featNames), p.xs),
		FeatureNames: slices.Clone(p.featNames),
		Queries:      p.queries,
		QueryNames:   p.qnames[:len(p.qnames):len(p.qnames)],
	}
	if p.qidCol < 0 {
		d.QueryNames = nil
	}
	if len(p.labels) > 0 {
		d.Y = mat.NewDense(p.m, len(p.labels), p.ys)
		d.LabelNames = slices.Clone(p.labels)
	}
	p.xs, p.ys, p.queries, p.m = nil, nil, nil, 0
	p.gz.release() // the rows read are handed over
	return d, nil
}

// read reads the next record within the line bound: io.EOF at the end, else
// a *ParseError.
func (p *csvParser) read() ([]string, error) {
	rec, err := p.cr.Read()
	if err == io.EOF {
		return nil, err
	}
	if err != nil {
		return nil, csvError(p.name, err)
	}
	end := p.cr.InputOffset()
	if max := p.rl.lim.line; max > 0 && p.rl.length(end) > max {
		line, _ := p.cr.FieldPos(0)
		return nil, &ParseError{File: p.name, Line: line, Err: p.rl.lim.lineError("the CSV record", line)}
	}
	p.rl.next(end)
	return rec, nil
}

// recordLimit feeds the CSV reader at most the line bound past the start of
// the record being read (and the 4 KiB the CSV reader reads ahead), so that
// a record of any length, a line or lines within a quoted field, costs at
// most about three times the bound (the CSV reader's line, record and field
// buffers); csvParser.read checks each record's exact length.
type recordLimit struct {
	r         io.Reader
	lim       limits
	start     int64 // offset of the record being read
	startLine int   // its line
	total     int64 // bytes delivered
	lines     int   // line breaks delivered
	recent    []byte
	err       error
}

// csvReadAhead is the CSV reader's buffer (bufio's default size).
const csvReadAhead = 4096

func (l *recordLimit) Read(b []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if max := l.lim.line; max > 0 {
		room := l.start + max + 2 + csvReadAhead - l.total
		if room <= 0 {
			l.err = l.lim.lineError("the CSV record", l.startLine)
			return 0, l.err
		}
		if int64(len(b)) > room {
			b = b[:room]
		}
	}
	n, err := l.r.Read(b)
	l.total += int64(n)
	l.lines += bytes.Count(b[:n], []byte{'\n'})
	// the bytes the CSV reader may not have consumed yet
	l.recent = append(l.recent, b[:n]...)
	if k := len(l.recent) - 2*csvReadAhead; k > 0 {
		l.recent = append(l.recent[:0], l.recent[k:]...)
	}
	return n, err
}

// length returns the bytes of the record that ends at offset end, without
// its line break.
func (l *recordLimit) length(end int64) int64 {
	n := end - l.start
	k := int64(len(l.recent)) - (l.total - end) // end within recent
	for _, c := range []byte{'\n', '\r'} {
		if n > 0 && k > 0 && l.recent[k-1] == c {
			n, k = n-1, k-1
		}
	}
	return n
}

// next starts a record at offset end (the CSV reader's InputOffset), after
// the line breaks before it.
func (l *recordLimit) next(end int64) {
	ahead := l.recent[max(int64(len(l.recent))-(l.total-end), 0):]
	l.start, l.startLine = end, l.lines-bytes.Count(ahead, []byte{'\n'})+1
}

// emptyError is the error for an input without data rows.
func (p *csvParser) emptyError() error {
	return perr(p.name, p.headerLine, 0, "", ErrEmpty, "header only, no data rows")
}

// csvError converts an error from encoding/csv into a *ParseError (a
// decompression error names the line its data end in).
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
