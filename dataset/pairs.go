package dataset

import (
	"io"
	"os"
	"slices"
	"unsafe"
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
// decompression budget (EnvMaxDecompressed) (ErrLimit). The first error in
// line order is the one reported.
//
// Plain (not gzip) input is read in blocks parsed on all cores, as
// ReadSVMLight reads (pairs_blocks.go); gzip input, whose budget is counted
// line by line, is read by the sequential reader, which also reads a block
// again wherever the block reader meets anything to judge, so the pairs and
// the errors are the sequential reader's.
// Time O(size of the file), spread over the cores; memory O(n) for n pairs:
// the pairs' arrays, sized once from the input's size (Pairs.reserve), plus
// a bounded number of blocks in flight; repeated pairs are found with a bit
// per (row, column) cell once that costs no more than a map of the pairs
// read so far (a map until then).
func ReadPairs(r io.Reader, name string, opt PairsOptions) (*Pairs, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, opt.Rows); err != nil {
		return nil, err
	}
	if err := checkIndexArgs(r, name, opt.Cols); err != nil {
		return nil, err
	}
	p := &pairsReader{name: name, opt: opt, out: &Pairs{}, seen: newPairSet(opt.Rows, opt.Cols), labelled: -1,
		left: bytesLeft(r), want: "\"row col label\""}
	if opt.Unlabelled {
		p.want = "\"row col\" or \"row col label\""
	}
	lr := newLineReader(r)
	p.lim = lr.lim
	var err error
	if !lr.open() || lr.gz != nil {
		err = p.sequential(lr) // a read error to report, or gzip: its budget is counted line by line
	} else {
		err = readBlocks(lr.br, newPairsBlocks(p))
	}
	if err != nil {
		return nil, err
	}
	if p.out.Len() == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no pairs")
	}
	return p.out, nil
}

// pairsReader is ReadPairs' state: the pairs accepted so far and what a
// line is checked against (a label on every line or none, no pair twice).
type pairsReader struct {
	name     string
	opt      PairsOptions
	want     string // the line format, for messages
	lim      limits
	out      *Pairs
	seen     *pairSet
	labelled int   // unknown -1, 0 no, 1 yes
	line     int   // lines read
	left     int64 // the input's size when known (bytesLeft), else 0
	read     int64 // bytes of the lines read
	reserved bool  // the slices were sized (Pairs.reserve)
}

// pairFields returns the first four whitespace-separated fields of the
// line s (its comment stripped), in s's memory, and their number.
func pairFields(s string) (f [4]string, nf int) {
	s = stripComment(s)
	for tok, i := nextField(s, 0); tok != ""; tok, i = nextField(s, i) {
		if nf < len(f) {
			f[nf] = tok
		}
		nf++
	}
	return f, nf
}

// indices checks the number of fields nf (at least 1) of the line and
// parses its row and column indices, with the errors ReadPairs reports.
func (p *pairsReader) indices(f *[4]string, nf, line int) (row, col int, err error) {
	switch {
	case nf == 1:
		return 0, 0, perr(p.name, line, 1, f[0], ErrRagged, "1 field, want %s", p.want)
	case nf == 2 && !p.opt.Unlabelled:
		return 0, 0, perr(p.name, line, 2, f[1], ErrRagged, "no label, want %s", p.want)
	case nf > 3:
		return 0, 0, perr(p.name, line, 4, f[3], ErrRagged, "%d fields, want %s", nf, p.want)
	}
	if row, err = parseIndex(p.name, line, 1, f[0], p.opt.Rows); err != nil {
		return 0, 0, err
	}
	if col, err = parseIndex(p.name, line, 2, f[1], p.opt.Cols); err != nil {
		return 0, 0, err
	}
	return row, col, nil
}

// sizeFor sizes the slices, once, when the pairs read reach pairsSample:
// n pairs, labelled or not, in the first read bytes of the input.
func (p *pairsReader) sizeFor(read int64, n int, labels bool) {
	if !p.reserved && n >= pairsSample && p.left > 0 {
		p.out.reserve(p.left, read, n, labels, p.opt)
		p.reserved = true
	}
}

// sequential reads the lines of lr to its end, one at a time, after the
// pairs read so far (p.line lines).
func (p *pairsReader) sequential(lr *lineReader) error {
	out := p.out
	for {
		b, ok := lr.nextBytes()
		if !ok {
			break
		}
		p.read += int64(len(b)) + 1
		p.sizeFor(p.read, out.Len(), out.Labels != nil)
		// valid until the next line is read; what is kept (error tokens) is copied
		f, nf := pairFields(unsafe.String(unsafe.SliceData(b), len(b)))
		if nf == 0 {
			continue
		}
		row, col, err := p.indices(&f, nf, lr.line)
		if err != nil {
			return err
		}
		has := 0
		if nf == 3 {
			has = 1
		}
		if p.labelled >= 0 && has != p.labelled {
			first := out.Lines[0]
			if has == 1 {
				return perr(p.name, lr.line, 3, f[2], ErrRagged, "a label, but line %d has none: label every pair or none", first)
			}
			return perr(p.name, lr.line, 2, f[1], ErrRagged, "no label, but line %d has one: label every pair or none", first)
		}
		p.labelled = has
		if p.seen.add(row, col) {
			return perr(p.name, lr.line, 1, f[0], ErrDuplicate, "pair (%d, %d) already on line %d", row, col, out.lineOf(row, col))
		}
		if has == 1 {
			v, err := parseValue(f[2])
			if err != nil {
				return &ParseError{File: p.name, Line: lr.line, Column: 3, Token: clip(f[2]), Err: err}
			}
			out.Labels = append(out.Labels, v)
		}
		out.Rows, out.Cols, out.Lines = append(out.Rows, row), append(out.Cols, col), append(out.Lines, lr.line)
	}
	p.line = lr.line
	if lr.err != nil {
		return readErr(p.name, lr.line+1, lr.err)
	}
	return nil
}

// pairsSample is the number of pairs read before ReadPairs sizes its
// slices for the rest of the input.
const pairsSample = 1024

// reserve grows the slices (Labels too when labels), once n ≥ pairsSample
// pairs have been read from the first read bytes of left, to the number of pairs the input holds at
// that rate (plus 1/8): one allocation each instead of a doubling series
// with its copies. The estimate is at most left/6 pairs (a line "0 0 0" and
// its newline) and at most rows·cols (pairs are distinct), so it is bounded
// by the input's own size, as the pairs themselves are.
func (p *Pairs) reserve(left, read int64, n int, labels bool, opt PairsOptions) {
	est := left / read * int64(n) // left·n/read without overflowing
	est += left % read * int64(n) / read
	est += est / 8
	est = min(est, left/6, int64(opt.Rows)*int64(opt.Cols))
	if opt.Rows != 0 && int64(opt.Rows)*int64(opt.Cols)/int64(opt.Rows) != int64(opt.Cols) {
		est = min(est, left/6) // rows·cols overflows: no bound from it
	}
	grow := int(est) - p.Len()
	if grow <= 0 {
		return
	}
	p.Rows, p.Cols, p.Lines = slices.Grow(p.Rows, grow), slices.Grow(p.Cols, grow), slices.Grow(p.Lines, grow)
	if labels {
		p.Labels = slices.Grow(p.Labels, grow)
	}
}

// bytesLeft returns how many bytes r has left to read when it can tell — a
// regular file (as the command line opens them) or an in-memory reader —
// else 0. For gzip input that is the compressed size: an underestimate,
// which only leaves the slices to grow by appending.
func bytesLeft(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil || off > st.Size() {
			return 0
		}
		return st.Size() - off
	}
	return 0
}

// lineOf returns the line of the pair (row, col) read (0 if none). O(n):
// for an error message only.
func (p *Pairs) lineOf(row, col int) int {
	for i, r := range p.Rows {
		if r == row && p.Cols[i] == col {
			return p.Lines[i]
		}
	}
	return 0
}

// pairSet is the set of (row, column) cells of a rows×cols grid read so
// far: a map while few cells are set, a bit per cell once the pairs read
// reach one per pairSetBitsPerPair cells (so the bits cost at most
// pairSetBitsPerPair/8 bytes per pair, less than the map), or from the
// start when the grid has at most pairSetDenseCells cells; a map keyed by
// the pair itself throughout when rows·cols overflows int64 (the cell
// number row·cols+col would wrap, and distinct pairs could share one).
type pairSet struct {
	cols  int64
	cells int64 // rows·cols, or -1 when that overflows
	bits  []uint64
	set   map[int64]struct{}
	wide  map[[2]int]struct{} // when rows·cols overflows: keyed by the pair, as row·cols+col would wrap
}

// pairSetBitsPerPair and pairSetDenseCells decide when a pairSet switches
// to bits (variables only so that a test can exercise both forms).
var pairSetBitsPerPair, pairSetDenseCells int64 = 64, 1 << 23

func newPairSet(rows, cols int) *pairSet {
	s := &pairSet{cols: int64(cols), cells: int64(rows) * int64(cols)}
	if rows != 0 && s.cells/int64(rows) != int64(cols) {
		s.cells = -1
	}
	switch {
	case s.cells < 0:
		s.wide = make(map[[2]int]struct{})
	case s.cells <= pairSetDenseCells:
		s.bits = make([]uint64, (s.cells+63)/64)
	default:
		s.set = make(map[int64]struct{})
	}
	return s
}

// add adds the cell (row, col) and reports whether it was already there.
// O(1) amortized (expected, for the map).
func (s *pairSet) add(row, col int) bool {
	if s.wide != nil {
		if _, ok := s.wide[[2]int{row, col}]; ok {
			return true
		}
		s.wide[[2]int{row, col}] = struct{}{}
		return false
	}
	key := int64(row)*s.cols + int64(col)
	if s.bits != nil {
		w, b := key>>6, uint64(1)<<(key&63)
		if s.bits[w]&b != 0 {
			return true
		}
		s.bits[w] |= b
		return false
	}
	if _, ok := s.set[key]; ok {
		return true
	}
	s.set[key] = struct{}{}
	if n := int64(len(s.set)); s.cells >= 0 && n*pairSetBitsPerPair >= s.cells {
		s.bits = make([]uint64, (s.cells+63)/64)
		for k := range s.set {
			s.bits[k>>6] |= uint64(1) << (k & 63)
		}
		s.set = nil
	}
	return false
}

// remove takes the cell (row, col), which add added, out of the set again
// (the block reader's undo of a block it does not merge). O(1).
func (s *pairSet) remove(row, col int) {
	if s.wide != nil {
		delete(s.wide, [2]int{row, col})
		return
	}
	key := int64(row)*s.cols + int64(col)
	if s.bits != nil {
		s.bits[key>>6] &^= uint64(1) << (key & 63)
		return
	}
	delete(s.set, key)
}
