package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

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
	// Columns chooses the feature columns (by default every column that is
	// not a label or the query column). For an .npz archive it applies to
	// the columns of the feature array X, by number only.
	Columns Columns
	// ClassLabels reads the one label column as class labels: its values
	// are kept as written (surrounding spaces removed; any token, numeric
	// or not) in Data.Classes, and Y holds each row's index into them. More
	// than MaxClasses distinct values stop the reading with ErrClasses (a
	// continuous label). Plain input is then read sequentially, not in
	// blocks. Without label columns it does nothing.
	ClassLabels bool
}

// Column roles in a CSV file; labels use their index 0..t-1.
const (
	roleFeature = -1
	roleQid     = -2
)

// ReadCSV reads a CSV data set from r; name is used in error messages. The
// first record is a header naming the columns; a UTF-8 byte order mark before
// it is skipped. Columns named in opt.Labels form Y (in that order), the
// opt.Qid column gives the query ids, and the other columns are features
// (all of them, or those opt.Columns chooses: the fields of the others are
// not parsed), stored densely in a *mat.Dense X. Every column read must
// have a name — an empty first name is pandas' index, refused with the hint
// to drop it (--ignore 1) — and no two columns read may share one
// (ErrUnknownColumn, naming the columns). The delimiter is opt.Comma, or else
// detected from the header (comma, semicolon or tab). gzip-compressed input is
// decompressed on the fly. Header names and numeric values may be
// surrounded by spaces; quoting follows RFC 4180, by the rules of
// encoding/csv's Reader with its defaults (csvReader); empty lines are
// skipped, and any other line is a record (a line of spaces is a record with
// an empty value, an error). Values are decimal numbers: no underscores,
// hexadecimal, NaN or infinities. Missing values are not supported. A record
// (a line, or the lines of a quoted field) longer than the line bound
// (EnvMaxLine, 64 MiB by default; it costs up to about twice that), or gzip
// input decompressing beyond the decompression budget (EnvMaxDecompressed),
// is an error naming the line (ErrLimit).
//
// Plain (not compressed) input is parsed in blocks on all cores (GOMAXPROCS
// workers; see blocks.go) into the rows the sequential reader reads, with
// its errors. O(bytes) time; memory about twice the values read at the end
// (the blocks' rows and the final matrix) plus a few blocks of text.
//
// ReadCSV is ReadChunks with a single chunk: both apply the same rules.
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Data, error) {
	name = inputName(name)
	p, err := newCSVParser(r, name, opt)
	if err != nil {
		return nil, err
	}
	if p.gz != nil || p.ccode != nil {
		// gzip: its budget is counted record by record; class labels are
		// coded in order of appearance
		return readWhole(p)
	}
	b := &csvBlocks{g: p}
	if err := readBlocks(p.r.src, b); err != nil {
		return nil, err
	}
	b.join()
	if p.pending() == 0 {
		return nil, p.emptyError()
	}
	return p.take()
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
	r          *csvReader
	gz         *gzipText // the decompressor of gzip input, nil for plain input
	headerLine int
	ncol       int
	roles      []int
	labels     []string
	featNames  []string
	qidCol     int
	svmHint    bool  // the header looks like svmlight data
	featCols   []int // the feature columns chosen (Columns), in X's order; nil: all
	featOrder  []int // when not nil, X's column k is the featOrder[k]-th feature field of a line
	qcode      map[string]int
	qnames     []string
	ccode      map[string]int // class labels (ClassLabels): token → code
	cnames     []string

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
	cr := newCSVReader(comma, lim)
	cr.src = br

	p := &csvParser{name: name, r: cr, gz: gz, qidCol: -1}
	if err := p.read(); err == io.EOF {
		return nil, perr(name, 0, 0, "", ErrEmpty, "empty file (no header row)")
	} else if err != nil {
		return nil, err
	}
	p.headerLine = cr.fieldLine(0)
	rec := make([]string, cr.fields())
	for j := range rec {
		rec[j] = string(cr.field(j))
	}
	p.svmHint = looksLikeSVMLight(strings.Join(rec, string(comma)))
	header := make([]string, len(rec))
	for j, h := range rec {
		header[j] = strings.TrimSpace(h)
	}
	p.ncol = len(header)
	labels := opt.Labels
	if len(labels) == 0 && opt.LabelsFromHeader != nil {
		labels = opt.LabelsFromHeader(slices.Clone(header))
	}
	p.labels = slices.Clone(labels)

	roles, feats, err := chooseColumns(table{n: p.ncol, names: header, noun: "the header"}, p.labels, opt.Qid, opt.Columns)
	if err != nil {
		pe := &ParseError{File: name, Line: p.headerLine, Err: err}
		if errors.Is(err, ErrOptions) {
			return nil, pe
		}
		return nil, p.hint(pe)
	}
	p.roles = roles
	for j, r := range roles {
		switch {
		case r == roleQid:
			p.qidCol = j
			p.qcode = make(map[string]int)
		case r == roleFeature:
			p.featNames = append(p.featNames, header[j])
		}
	}
	if !opt.Columns.IsZero() {
		p.featCols = feats
		// the fields are read in file order: X's columns are put in the
		// order chosen when they differ (take)
		if !slices.IsSorted(feats) {
			p.featOrder = make([]int, len(feats))
			sorted := slices.Sorted(slices.Values(feats))
			for k, j := range feats {
				p.featOrder[k], _ = slices.BinarySearch(sorted, j)
			}
			for k, j := range feats {
				p.featNames[k] = header[j]
			}
		}
	}
	p.labRow = make([]float64, len(p.labels))
	if opt.ClassLabels && len(p.labels) > 0 {
		if len(p.labels) != 1 {
			return nil, fmt.Errorf("%w: %s: class labels are one column, got %d label columns", ErrOptions, name, len(p.labels))
		}
		p.ccode = make(map[string]int)
	}
	return p, nil
}

// next reads one record into the pending rows; false at the end of input.
func (p *csvParser) next() (bool, error) {
	name, cr := p.name, p.r
	if err := p.read(); err == io.EOF {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if cr.simple != nil && fastLines && cr.commaB != 0 {
		if stored, err := p.fastRecord(cr.simple); stored || err != nil {
			return stored, err
		}
	}
	nf := cr.fields()
	if nf != p.ncol {
		if nf > p.ncol {
			return false, perr(name, cr.fieldLine(p.ncol), p.ncol+1, bytesString(cr.field(p.ncol)), ErrRagged,
				"row has %d fields, header has %d", nf, p.ncol)
		}
		return false, perr(name, cr.recLine, 0, "", ErrRagged, "row has %d fields, header has %d", nf, p.ncol)
	}
	held := int64(8 * nf) // features, labels and query code
	for j := 0; j < nf; j++ {
		// f aliases the reader's buffer: what is kept of it is copied
		f := bytesString(cr.field(j))
		role := p.roles[j]
		if role < roleFeature { // the query column, or one ignored (not parsed)
			if role == roleIgnored {
				continue
			}
			q := strings.TrimSpace(f)
			if q == "" {
				return false, perr(name, cr.fieldLine(j), j+1, f, ErrQid, "empty qid")
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
		if role >= 0 && p.ccode != nil {
			c, size, err := p.classCode(strings.TrimSpace(f), cr.fieldLine(j), j+1)
			if err != nil {
				return false, err
			}
			p.labRow[role] = c
			held += size
			continue
		}
		v, err := parseValue(strings.TrimSpace(f))
		if err != nil {
			pe := &ParseError{File: name, Line: cr.fieldLine(j), Column: j + 1, Token: clip(f), Err: err}
			if role >= 0 && err == errNotNumber {
				pe.Err = fmt.Errorf("not a number (label column %q: class names need --one-vs-all, or --positive CLASS for two classes): %w", p.labels[role], ErrSyntax)
			}
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
	return p.store(held)
}

// fastRecord stores a record read in place (one line, no quote, a one-byte
// delimiter) when every value is exactly a number that fastDecimal takes —
// no spaces around it — and every query id exactly a name met before: what
// the general path of next would store,
// bit for bit. It returns false, storing nothing, for anything else, which
// next then reads field by field (and makes every error).
func (p *csvParser) fastRecord(line []byte) (bool, error) {
	comma := p.r.commaB
	x0, q0 := len(p.xs), len(p.queries)
	n, i := len(line), 0
	for j, role := range p.roles {
		if role >= 0 && p.ccode != nil { // a class label met before
			end := n
			if k := bytes.IndexByte(line[i:], comma); k >= 0 {
				end = i + k
			}
			c, ok := p.ccode[string(line[i:end])]
			if !ok {
				p.xs, p.queries = p.xs[:x0], p.queries[:q0]
				return false, nil
			}
			p.labRow[role] = float64(c)
			i = end
		} else if role >= roleFeature { // a feature or a label
			v, end, ok := scanDecimal(line, i)
			if !ok {
				p.xs, p.queries = p.xs[:x0], p.queries[:q0]
				return false, nil
			}
			if role == roleFeature {
				p.xs = append(p.xs, v)
			} else {
				p.labRow[role] = v
			}
			i = end
		} else if role == roleQid {
			end := n
			if k := bytes.IndexByte(line[i:], comma); k >= 0 {
				end = i + k
			}
			// a name met before was trimmed: this field is one only
			// when it has no spaces to trim
			c, ok := p.qcode[string(line[i:end])]
			if !ok {
				p.xs, p.queries = p.xs[:x0], p.queries[:q0]
				return false, nil
			}
			p.queries = append(p.queries, c)
			i = end
		} else { // ignored: skipped, not parsed
			if k := bytes.IndexByte(line[i:], comma); k >= 0 {
				i += k
			} else {
				i = n
			}
		}
		if j < len(p.roles)-1 && i < n && line[i] == comma {
			i++
		} else if j < len(p.roles)-1 || i != n {
			p.xs, p.queries = p.xs[:x0], p.queries[:q0]
			return false, nil
		}
	}
	return p.store(int64(8 * len(p.roles)))
}

// store ends a record whose features are in xs and labels in labRow,
// charging held bytes to the gzip budget.
func (p *csvParser) store(held int64) (bool, error) {
	if p.gz != nil {
		if err := p.gz.charge(held, p.r.recLine); err != nil {
			return false, &ParseError{File: p.name, Line: p.r.recLine, Err: err}
		}
	}
	p.ys = append(p.ys, p.labRow...)
	p.m++
	p.total++
	return true, nil
}

// classCode returns the code of a class label token (ClassLabels), coding
// a new one, and the bytes a new one holds (charged to the gzip budget);
// more than MaxClasses tokens are an error naming line and column.
func (p *csvParser) classCode(tok string, line, col int) (float64, int64, error) {
	if tok == "" {
		return 0, 0, perr(p.name, line, col, tok, ErrClasses, "empty class label")
	}
	c, ok := p.ccode[tok]
	var size int64
	if !ok {
		if len(p.cnames) == MaxClasses {
			return 0, 0, perr(p.name, line, col, tok, ErrClasses, "label column %q: more than %d distinct values (%s)", p.labels[0], MaxClasses, continuousHint)
		}
		c = len(p.cnames)
		tok = strings.Clone(tok)
		p.ccode[tok] = c
		p.cnames = append(p.cnames, tok)
		size = int64(len(tok)) + qidCost
	}
	return float64(c), size, nil
}

// bytesString views b as a string without copying; the string is valid only
// as long as b's bytes are not overwritten.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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
	nf := len(p.featNames)
	if p.featOrder != nil {
		row := make([]float64, nf)
		for i := 0; i < p.m; i++ {
			xi := p.xs[i*nf : (i+1)*nf]
			for k, f := range p.featOrder {
				row[k] = xi[f]
			}
			copy(xi, row)
		}
	}
	d := &Data{
		X:              mat.NewDense(p.m, nf, p.xs),
		FeatureNames:   slices.Clone(p.featNames),
		FeatureColumns: slices.Clone(p.featCols),
		Queries:        p.queries,
		QueryNames:     p.qnames[:len(p.qnames):len(p.qnames)],
	}
	if p.qidCol < 0 {
		d.QueryNames = nil
	}
	if len(p.labels) > 0 {
		d.Y = mat.NewDense(p.m, len(p.labels), p.ys)
		d.LabelNames = slices.Clone(p.labels)
		if p.ccode != nil {
			d.Classes = slices.Clone(p.cnames)
		}
	}
	p.xs, p.ys, p.queries, p.m = nil, nil, nil, 0
	p.gz.release() // the rows read are handed over
	return d, nil
}

// read reads the next record: io.EOF at the end, else a *ParseError.
func (p *csvParser) read() error {
	err := p.r.read()
	if err == nil || err == io.EOF {
		return err
	}
	var se *csvSyntaxError
	if errors.As(err, &se) {
		return &ParseError{File: p.name, Line: se.line, Err: fmt.Errorf("byte %d: %v: %w", se.col, se.err, ErrSyntax)}
	}
	return readErr(p.name, 0, err)
}

// emptyError is the error for an input without data rows.
func (p *csvParser) emptyError() error {
	return perr(p.name, p.headerLine, 0, "", ErrEmpty, "header only, no data rows")
}
