package dataset

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// SVMLightOptions configures ReadSVMLight and the svmlight side of ReadChunks.
type SVMLightOptions struct {
	// Width, if positive, is the number of features: an index above it is
	// an error. Otherwise the width is the largest index seen.
	Width int
	// Dense makes X a *mat.Dense instead of a *matrix.CSR. A dense matrix is
	// refused (ErrIndex) when it would hold more than MaxDenseEntries entries
	// and more than DenseFill times the entries the file stores, so that a
	// few bytes with a huge index cannot ask for gigabytes.
	Dense bool
	// Base says how feature indices are numbered: OneBased (the zero
	// value: svmlight and libsvm files), ZeroBased (what scikit-learn's
	// dump_svmlight_file writes by default) or AutoBase.
	Base IndexBase
}

// IndexBase is the numbering of svmlight feature indices. Either way they
// are stored as 0-based columns: feature 1 of a 1-based file and feature 0 of
// a 0-based file are column 0.
type IndexBase int

const (
	// OneBased indices start at 1; index 0 is an error (ErrIndex).
	OneBased IndexBase = iota
	// ZeroBased indices start at 0.
	ZeroBased
	// AutoBase decides as scikit-learn's load_svmlight_file(zero_based="auto")
	// does: a file whose smallest index is 0 is 0-based, any other 1-based.
	// ReadSVMLight decides on the whole file; ReadChunks on its first chunk
	// (an index 0 in a later chunk, after rows were read 1-based, is then an
	// error naming its line: give the base explicitly).
	AutoBase
)

// ParseIndexBase parses the spelling of a base used by the command line and
// by scikit-learn's zero_based argument: "auto", "true" (0-based) or "false"
// (1-based).
func ParseIndexBase(s string) (IndexBase, error) {
	switch s {
	case "auto":
		return AutoBase, nil
	case "true":
		return ZeroBased, nil
	case "false":
		return OneBased, nil
	}
	return 0, fmt.Errorf("%w: zero-based %q: want auto, true or false", ErrOptions, s)
}

// String returns "false" (OneBased), "true" (ZeroBased) or "auto".
func (b IndexBase) String() string {
	switch b {
	case OneBased:
		return "false"
	case ZeroBased:
		return "true"
	case AutoBase:
		return "auto"
	}
	return "IndexBase(" + strconv.Itoa(int(b)) + ")"
}

// Bounds on the dense matrices ReadSVMLight builds with SVMLightOptions.Dense:
// a matrix of m×c entries is refused when m·c exceeds both MaxDenseEntries
// and DenseFill·(stored entries + m).
const (
	MaxDenseEntries = 1 << 20
	DenseFill       = 64
)

// ReadSVMLight reads an svmlight/libsvm data set from r; name is used in
// error messages. Each non-blank, non-comment line is
//
//	label [qid:Q] index:value ... [# comment]
//
// with strictly increasing feature indices, 1-based unless opt.Base says
// otherwise (Data.ZeroBased reports the base read), stored as 0-based
// columns. gzip-compressed input is decompressed on the fly; a truncated or
// corrupt stream is a *ParseError on the line the data end in, wrapping a
// *GzipError. A first data line that is not svmlight but splits into fields
// at commas, semicolons or tabs is reported as looking like CSV. The label may be several comma-separated numbers ("1.5,2,3") for
// multi-output data; every row must then have the same number of labels.
// Either every row has a qid or none has. Y is always set, with LabelNames
// ["label"] (or "label1", "label2", ... for multi-output data). Values are
// decimal numbers: no underscores, hexadecimal, NaN or infinities.
//
// The sparse X costs memory in proportion to the stored entries whatever the
// indices: a width of 5·10⁹ is only a number. A line longer than the line
// bound (EnvMaxLine, 64 MiB by default), or gzip input decompressing beyond
// the decompression budget (EnvMaxDecompressed), is an error naming the line
// (ErrLimit).
//
// Plain (not compressed) input is parsed in blocks on all cores (GOMAXPROCS
// workers; see blocks.go) into the rows, width, base and query codes the
// sequential reader reads, with its errors; a row of the common form takes
// a one-pass path (fastRow). O(bytes) time; memory about twice the entries
// read at the end (the blocks' rows and the final arrays, 16 bytes an
// entry each), plus a few blocks of text.
//
// ReadSVMLight is ReadChunks with a single chunk: both apply the same rules.
func ReadSVMLight(r io.Reader, name string, opt SVMLightOptions) (*Data, error) {
	name = inputName(name)
	p, err := newSVMParser(r, name, opt)
	if err != nil {
		return nil, err
	}
	if !p.lr.open() || p.lr.gz != nil {
		return readWhole(p) // a read error to report, or gzip: its budget is counted line by line
	}
	s := &svmBlocks{g: p}
	if err := readBlocks(p.lr.br, s); err != nil {
		return nil, err
	}
	s.join()
	if p.pending() == 0 {
		return nil, p.emptyError()
	}
	return p.take()
}

// svmParser reads an svmlight data set one line at a time. The number of
// labels, the presence of qids, the query codes and the largest index persist
// for the whole input; the rows read since the last take are held until take.
type svmParser struct {
	name      string
	opt       SVMLightOptions
	lr        *lineReader
	t         int  // labels per row, set by the first row
	hasQid    bool // set by the first row
	firstLine int  // line of the first data row
	maxIdx    int  // largest index read (as written)
	hasIdx    bool // some index was read
	base      IndexBase
	sawZero   bool        // AutoBase, undecided: an index 0 was read
	atWidth   *ParseError // AutoBase with a width, undecided: the first index equal to the width
	qcode     map[string]int
	qnames    []string
	total     int // rows read

	labels  []float64
	indptr  []int
	indices []int
	values  []float64
	queries []int
	m       int // rows since the last take
}

func newSVMParser(r io.Reader, name string, opt SVMLightOptions) (*svmParser, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil reader", ErrOptions, name)
	}
	if opt.Width < 0 {
		return nil, fmt.Errorf("%w: %s: negative width %d", ErrOptions, name, opt.Width)
	}
	if opt.Base < OneBased || opt.Base > AutoBase {
		return nil, fmt.Errorf("%w: %s: index base %d", ErrOptions, name, int(opt.Base))
	}
	return &svmParser{name: name, opt: opt, base: opt.Base, lr: newLineReader(r), indptr: []int{0}}, nil
}

// next reads lines up to and including the next data row; false at the end
// of input.
func (p *svmParser) next() (bool, error) {
	for {
		b, ok := p.lr.nextBytes()
		if !ok {
			if p.lr.err != nil {
				return false, readErr(p.name, p.lr.line+1, p.lr.err)
			}
			return false, nil
		}
		row, err := p.parseLine(b, p.lr.line)
		if err != nil || row {
			return row, err
		}
	}
}

// fastLines switches the fast path of parseLine (fastRow); tests turn it off
// to compare the two paths.
var fastLines = true

// parseLine parses one line, the line-th of the input, into the pending rows:
// true when it held a data row, false for a blank or comment line. b may
// alias a reader's buffer: what is kept of it is copied.
func (p *svmParser) parseLine(b []byte, line int) (bool, error) {
	if p.total > 0 && fastLines {
		if stored, err := p.fastRow(b, line); stored || err != nil {
			return stored, err
		}
	}
	name := p.name
	// s aliases the reader's buffer: what is kept of it (a query name,
	// an error's token) is copied
	s := stripComment(unsafe.String(unsafe.SliceData(b), len(b)))
	tok, i := nextField(s, 0)
	if tok == "" {
		return false, nil // blank or comment-only line
	}
	first := p.total == 0

	// Label(s).
	col := 1
	if strings.IndexByte(tok, ':') >= 0 {
		return false, p.hint(s, perr(name, line, col, tok, ErrSyntax, "missing label (the first field must be the label)"))
	}
	n := strings.Count(tok, ",") + 1
	if first {
		p.t = n
		p.firstLine = line
	} else if n != p.t {
		return false, perr(name, line, col, tok, ErrRagged,
			"row has %d labels, line %d has %d", n, p.firstLine, p.t)
	}
	for rest := tok; ; {
		part := rest
		k := strings.IndexByte(rest, ',')
		if k >= 0 {
			part, rest = rest[:k], rest[k+1:]
		}
		v, err := parseValue(part)
		if err != nil {
			return false, p.hint(s, &ParseError{File: name, Line: line, Column: col, Token: clip(tok), Err: err})
		}
		p.labels = append(p.labels, v)
		if k < 0 {
			break
		}
	}

	held := int64(8 * (p.t + 1)) // labels and the row's start

	// Optional qid.
	tok, i = nextField(s, i)
	rowQid := strings.HasPrefix(tok, "qid:")
	if first {
		p.hasQid = rowQid
		if rowQid {
			p.qcode = make(map[string]int)
		}
	} else if rowQid != p.hasQid {
		if rowQid {
			return false, perr(name, line, col+1, tok, ErrQid, "qid given, but not on line %d", p.firstLine)
		}
		return false, perr(name, line, 0, "", ErrQid, "qid missing, but given on line %d", p.firstLine)
	}
	if rowQid {
		col++
		q := tok[len("qid:"):]
		if q == "" {
			return false, perr(name, line, col, tok, ErrQid, "empty qid")
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
		held += 8
		tok, i = nextField(s, i)
	}

	// Features, stored as written until take knows the base.
	prev := -1
	for ; tok != ""; tok, i = nextField(s, i) {
		col++
		k := strings.IndexByte(tok, ':')
		if k < 0 {
			return false, p.hint(s, perr(name, line, col, tok, ErrSyntax, "missing ':' in index:value"))
		}
		is, vs := tok[:k], tok[k+1:]
		if is == "qid" {
			return false, perr(name, line, col, tok, ErrSyntax, "qid must come right after the label")
		}
		idx, err := parseFeatureIndex(is)
		if err != nil {
			return false, p.hint(s, &ParseError{File: name, Line: line, Column: col, Token: clip(tok), Err: err})
		}
		if err := p.checkIndex(idx, prev, line, col, tok); err != nil {
			return false, err
		}
		v, err := parseValue(vs)
		if err != nil {
			return false, &ParseError{File: name, Line: line, Column: col, Token: clip(tok), Err: err}
		}
		p.indices = append(p.indices, idx)
		p.values = append(p.values, v)
		prev = idx
	}
	if prev >= 0 {
		p.maxIdx = max(p.maxIdx, prev)
		p.hasIdx = true
	}
	held += int64(16 * (len(p.indices) - p.indptr[len(p.indptr)-1]))
	if err := p.lr.gz.charge(held, line); err != nil {
		return false, &ParseError{File: name, Line: line, Err: err}
	}
	p.indptr = append(p.indptr, len(p.indices))
	p.m++
	p.total++
	return true, nil
}

// fastRow parses the common data row in one pass over b, with what the rows
// before fixed (the number of labels, whether rows have a qid):
//
//	label[,label…] [qid:Q] index:value …  [# comment]
//
// where every number takes fastDecimal's exact path, the indices are plain
// digits, increasing and within the width, and the query name is one met
// before. It stores the row exactly as the general path of parseLine would
// (the same values bit for bit, the same effects on the parser) and returns
// true, or stores nothing and returns false, leaving the line to the general
// path, which also makes every error. The gzip budget is charged as there.
func (p *svmParser) fastRow(b []byte, line int) (bool, error) {
	n := len(b)
	i := 0
	for i < n && isSpace(b[i]) {
		i++
	}
	if i == n || b[i] == '#' {
		return false, nil
	}
	l0, k0 := len(p.labels), len(p.indices)
	for k := 0; k < p.t; k++ {
		v, j, ok := scanDecimal(b, i)
		if k < p.t-1 { // a comma follows
			ok = ok && j < n && b[j] == ','
			j++
		} else { // the field ends
			ok = ok && (j == n || isSpace(b[j]) || b[j] == '#')
		}
		if !ok {
			p.labels = p.labels[:l0]
			return false, nil
		}
		p.labels = append(p.labels, v)
		i = j
	}
	held := int64(8 * (p.t + 1))
	for i < n && isSpace(b[i]) {
		i++
	}
	if p.hasQid {
		const pre = "qid:"
		j := i + len(pre)
		if j > n || string(b[i:j]) != pre {
			p.labels = p.labels[:l0]
			return false, nil
		}
		k := j
		for k < n && !isSpace(b[k]) && b[k] != '#' {
			k++
		}
		c, ok := p.qcode[string(b[j:k])]
		if !ok || j == k {
			p.labels = p.labels[:l0]
			return false, nil // an empty or a new query name
		}
		p.queries = append(p.queries, c)
		held += 8
		for i = k; i < n && isSpace(b[i]); i++ {
		}
	}
	w := p.opt.Width
	prev, zero := -1, false
	for i < n && b[i] != '#' {
		idx, j := 0, i
		for ; j < n && j-i < 18; j++ {
			c := b[j] - '0'
			if c > 9 {
				break
			}
			idx = idx*10 + int(c)
		}
		ok := j > i && j < n && b[j] == ':' && idx > prev
		if ok && idx == 0 {
			ok, zero = p.base != OneBased, true
		}
		if ok && w > 0 && idx >= w {
			// at the width: no error, and the note of the first such
			// index (checkIndex) already made
			ok = idx == w && p.base != ZeroBased && p.atWidth != nil
		}
		var v float64
		if ok {
			v, j, ok = scanDecimal(b, j+1)
			ok = ok && (j == n || isSpace(b[j]) || b[j] == '#')
		}
		if !ok {
			p.labels, p.indices, p.values = p.labels[:l0], p.indices[:k0], p.values[:k0]
			if p.hasQid {
				p.queries = p.queries[:len(p.queries)-1]
			}
			return false, nil
		}
		p.indices = append(p.indices, idx)
		p.values = append(p.values, v)
		prev = idx
		for i = j; i < n && isSpace(b[i]); i++ {
		}
	}
	if prev >= 0 {
		p.maxIdx = max(p.maxIdx, prev)
		p.hasIdx = true
	}
	p.sawZero = p.sawZero || zero
	held += int64(16 * (len(p.indices) - k0))
	if err := p.lr.gz.charge(held, line); err != nil {
		return false, &ParseError{File: p.name, Line: line, Err: err}
	}
	p.indptr = append(p.indptr, len(p.indices))
	p.m++
	p.total++
	return true, nil
}

func (p *svmParser) pending() int { return p.m }

// checkIndex checks a feature index (as written) against the base, the
// previous index of its row (-1 for none) and the width.
func (p *svmParser) checkIndex(idx, prev, line, col int, tok string) error {
	name, w := p.name, p.opt.Width
	switch {
	case idx < 0:
		return perr(name, line, col, tok, ErrIndex, "negative index %d", idx)
	case idx == 0 && p.base == OneBased && p.opt.Base == AutoBase:
		return perr(name, line, col, tok, ErrIndex,
			"index 0, but the rows before were read as 1-based (their chunk had no index 0): give the base explicitly (--zero-based true)")
	case idx == 0 && p.base == OneBased:
		return perr(name, line, col, tok, ErrIndex,
			"index 0: indices start at 1 (a 0-based file, as scikit-learn's dump_svmlight_file writes: read it with --zero-based true)")
	case idx == prev:
		return perr(name, line, col, tok, ErrIndex, "duplicate index %d", idx)
	case idx < prev:
		return perr(name, line, col, tok, ErrIndex, "index %d not increasing (follows %d)", idx, prev)
	case w > 0 && idx > w, w > 0 && idx == w && p.base == ZeroBased:
		lo, hi := 1, w
		if p.base == ZeroBased {
			lo, hi = 0, w-1
		}
		return perr(name, line, col, tok, ErrIndex, "index %d exceeds width %d (indices %d..%d)", idx, w, lo, hi)
	}
	if idx == 0 {
		p.sawZero = true
	}
	if w > 0 && idx == w && p.atWidth == nil {
		// AutoBase, undecided: too large if the file turns out 0-based
		p.atWidth = perr(name, line, col, tok, ErrIndex, "index %d exceeds width %d (indices 0..%d of a 0-based file)", idx, w, w-1)
	}
	return nil
}

// resolve decides an automatic base on the rows read so far.
func (p *svmParser) resolve() error {
	if p.base != AutoBase {
		return nil
	}
	p.base = OneBased
	if p.sawZero {
		p.base = ZeroBased
		if p.atWidth != nil {
			return p.atWidth
		}
	}
	return nil
}

// hint adds to an error on the first data row a note that the line looks
// like CSV, when it does.
func (p *svmParser) hint(line string, err *ParseError) *ParseError {
	if p.total == 0 && looksLikeCSV(line) {
		err.Err = fmt.Errorf("%w (the file looks like CSV: add --format csv)", err.Err)
	}
	return err
}

// take returns the pending rows as a data set and starts a new one. The width
// is opt.Width, or else the largest index read so far (in the whole input).
func (p *svmParser) take() (*Data, error) {
	if err := p.resolve(); err != nil {
		return nil, err
	}
	m := p.m
	c := 0
	if p.hasIdx {
		c = p.maxIdx
		if p.base == ZeroBased {
			c++
		}
	}
	if p.opt.Width > 0 {
		c = p.opt.Width
	}
	if p.base == OneBased {
		for k := range p.indices {
			p.indices[k]--
		}
	}
	d := &Data{
		Y:          mat.NewDense(m, p.t, p.labels),
		LabelNames: labelNames(p.t),
		Queries:    p.queries,
		ZeroBased:  p.base == ZeroBased,
	}
	if p.hasQid {
		d.QueryNames = p.qnames[:len(p.qnames):len(p.qnames)]
	}
	indptr, indices, values := p.indptr, p.indices, p.values
	p.labels, p.indptr, p.indices, p.values, p.queries, p.m = nil, []int{0}, nil, nil, nil, 0
	p.lr.release() // the rows read are handed over
	if !p.opt.Dense {
		d.X = &matrix.CSR{R: m, C: c, Indptr: indptr, Indices: indices, Values: values}
		return d, nil
	}
	if c == 0 {
		return nil, perr(p.name, 0, 0, "", ErrEmpty, "no features, cannot build a dense matrix (set a width)")
	}
	if limit := max(MaxDenseEntries, DenseFill*(len(values)+m)); c > limit/m {
		return nil, perr(p.name, 0, 0, "", ErrIndex,
			"a dense matrix of %d×%d is too large for %d stored values (at most %d entries; read it sparse)", m, c, len(values), limit)
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

// emptyError is the error for an input without data rows.
func (p *svmParser) emptyError() error {
	return perr(p.name, 0, 0, "", ErrEmpty, "no data rows")
}

// parseFeatureIndex parses a decimal svmlight feature index: an optional sign
// and digits only.
func parseFeatureIndex(s string) (int, error) {
	if n := len(s); n > 0 && n < 19 { // fast path: up to 18 digits, no sign
		v := 0
		for i := 0; i < n; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				v = -1
				break
			}
			v = v*10 + int(c-'0')
		}
		if v >= 0 {
			return v, nil
		}
	}
	if s == "" {
		return 0, fmt.Errorf("missing index: %w", ErrSyntax)
	}
	digits := s
	if digits[0] == '+' || digits[0] == '-' {
		digits = digits[1:]
	}
	if digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, fmt.Errorf("index not an integer: %w", ErrSyntax)
	}
	idx, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("index too large: %w", ErrIndex)
	}
	return idx, nil
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
