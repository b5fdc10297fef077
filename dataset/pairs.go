package dataset

import (
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
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
// decompression budget (EnvMaxDecompressed) (ErrLimit).
// Time O(size of the file); memory O(n) for n pairs: lines are parsed in
// the reader's buffer, and repeated pairs are found with a bit per
// (row, column) cell once that costs no more than a map of the pairs read
// so far (a map until then).
func ReadPairs(r io.Reader, name string, opt PairsOptions) (*Pairs, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, opt.Rows); err != nil {
		return nil, err
	}
	if err := checkIndexArgs(r, name, opt.Cols); err != nil {
		return nil, err
	}
	left := bytesLeft(r)
	pr := &pairsReader{name: name, opt: opt, out: &Pairs{}, seen: newPairSet(opt.Rows, opt.Cols), labelled: -1, left: left,
		want: "\"row col label\""}
	if opt.Unlabelled {
		pr.want = "\"row col\" or \"row col label\""
	}
	lr := newLineReader(r)
	var err error
	if workers := runtime.GOMAXPROCS(0); workers > 1 && (left == 0 || left >= pairsParallelMin) {
		err = pr.parallel(lr, workers)
	} else {
		err = pr.serial(lr)
	}
	if err != nil {
		return nil, err
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if pr.out.Len() == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no pairs")
	}
	return pr.out, nil
}

// pairsReader is the state of ReadPairs: the pairs accepted so far and what
// checks a line against them (a label on every line or none, no pair twice).
type pairsReader struct {
	name     string
	opt      PairsOptions
	want     string // the line format, for messages
	out      *Pairs
	seen     *pairSet
	labelled int   // unknown -1, 0 no, 1 yes
	left     int64 // the input's size when known (bytesLeft), else 0
	read     int64 // bytes of the lines accepted or skipped so far
	reserved bool  // the slices were sized (Pairs.reserve)
}

// pairLine is a non-blank line of a pairs file, parsed on its own.
type pairLine struct {
	row, col int
	line     int
	has      bool // a label
	label    float64
	labelErr error // the label is not a finite number: reported after the pair's checks, as it is read last
}

// lineFields splits a line (comment stripped) into its first four fields
// and counts them.
func lineFields(s string) (fields [4]string, n int) {
	s = stripComment(s)
	for tok, i := nextField(s, 0); tok != ""; tok, i = nextField(s, i) {
		if n < len(fields) {
			fields[n] = tok
		}
		n++
	}
	return fields, n
}

// parsePairLine parses the line s (number line): ok false for a blank or
// comment line; err for a wrong number of fields or an index that is not
// one. What depends on other lines — labels present or not, repeats — is
// pairsReader.accept's.
func (pr *pairsReader) parsePairLine(s string, line int) (pl pairLine, ok bool, err error) {
	fields, nf := lineFields(s)
	switch {
	case nf == 0:
		return pl, false, nil
	case nf == 1:
		return pl, false, perr(pr.name, line, 1, fields[0], ErrRagged, "1 field, want %s", pr.want)
	case nf == 2 && !pr.opt.Unlabelled:
		return pl, false, perr(pr.name, line, 2, fields[1], ErrRagged, "no label, want %s", pr.want)
	case nf > 3:
		return pl, false, perr(pr.name, line, 4, fields[3], ErrRagged, "%d fields, want %s", nf, pr.want)
	}
	pl = pairLine{line: line, has: nf == 3}
	if pl.row, err = parseIndex(pr.name, line, 1, fields[0], pr.opt.Rows); err != nil {
		return pl, false, err
	}
	if pl.col, err = parseIndex(pr.name, line, 2, fields[1], pr.opt.Cols); err != nil {
		return pl, false, err
	}
	if pl.has {
		if v, err := parseValue(fields[2]); err != nil {
			pl.labelErr = &ParseError{File: pr.name, Line: line, Column: 3, Token: clip(fields[2]), Err: err}
		} else {
			pl.label = v
		}
	}
	return pl, true, nil
}

// accept checks a parsed line (its text s, for the messages) against the
// lines before it — a label on every line or none, the pair not seen
// before — in this order, then its label, and appends the pair.
func (pr *pairsReader) accept(pl pairLine, s string) error {
	has := 0
	if pl.has {
		has = 1
	}
	out := pr.out
	if pr.labelled >= 0 && has != pr.labelled {
		fields, _ := lineFields(s)
		first := out.Lines[0]
		if has == 1 {
			return perr(pr.name, pl.line, 3, fields[2], ErrRagged, "a label, but line %d has none: label every pair or none", first)
		}
		return perr(pr.name, pl.line, 2, fields[1], ErrRagged, "no label, but line %d has one: label every pair or none", first)
	}
	pr.labelled = has
	if pr.seen.add(pl.row, pl.col) {
		fields, _ := lineFields(s)
		return perr(pr.name, pl.line, 1, fields[0], ErrDuplicate, "pair (%d, %d) already on line %d", pl.row, pl.col, out.lineOf(pl.row, pl.col))
	}
	if pl.labelErr != nil {
		return pl.labelErr
	}
	if pl.has {
		out.Labels = append(out.Labels, pl.label)
	}
	out.Rows, out.Cols, out.Lines = append(out.Rows, pl.row), append(out.Cols, pl.col), append(out.Lines, pl.line)
	return nil
}

// sized sizes the slices once pairsSample pairs have been accepted from
// the first pr.read bytes (Pairs.reserve), when the input's size is known.
func (pr *pairsReader) sized() {
	if !pr.reserved && pr.out.Len() >= pairsSample && pr.left > 0 {
		pr.out.reserve(pr.left, pr.read, pr.opt)
		pr.reserved = true
	}
}

// serial reads and parses line by line, in the reader's buffer.
func (pr *pairsReader) serial(lr *lineReader) error {
	for {
		b, ok := lr.nextBytes()
		if !ok {
			return nil
		}
		// valid until the next line is read; what is kept (error tokens) is copied
		s := unsafe.String(unsafe.SliceData(b), len(b))
		pl, ok, err := pr.parsePairLine(s, lr.line)
		if err != nil {
			return err
		}
		if ok {
			if err := pr.accept(pl, s); err != nil {
				return err
			}
		}
		pr.read += int64(len(b)) + 1
		pr.sized()
	}
}

// pairsParallelMin is the input size from which ReadPairs parses on several
// cores, and pairsBatch the bytes of lines a batch gathers (variables only
// so that a test can run the parallel reader on small inputs).
var pairsParallelMin, pairsBatch int64 = 1 << 20, 256 << 10

// pairsBatchOf is a batch of lines handed to a parser: their bytes, where
// each ends, the number of the first, and the parser's result.
type pairsBatchOf struct {
	buf   []byte
	ends  []int
	first int
	bytes int64 // the lines' bytes with their terminators

	lines []pairLine // parsed, in order, up to err's line
	at    []int      // the index in ends of each of lines
	err   error      // a field-count or index error, after lines
	done  chan struct{}
}

// text returns the k-th line of the batch.
func (b *pairsBatchOf) text(k int) string {
	start := 0
	if k > 0 {
		start = b.ends[k-1]
	}
	line := b.buf[start:b.ends[k]]
	return unsafe.String(unsafe.SliceData(line), len(line))
}

// parse parses the batch's lines in order until the first field-count or
// index error.
func (b *pairsBatchOf) parse(pr *pairsReader) {
	for k := range b.ends {
		pl, ok, err := pr.parsePairLine(b.text(k), b.first+k)
		if err != nil {
			b.err = err
			return
		}
		if ok {
			b.lines, b.at = append(b.lines, pl), append(b.at, k)
		}
	}
}

// parallel reads lines into batches in one goroutine, parses the batches on
// workers goroutines, and accepts their lines here in file order — the same
// pairs and the same first error as serial (a parse error in a batch is
// reported after the batch's lines before it are accepted). At most
// 3·workers + 1 batches of pairsBatch bytes exist at once; they are reused.
func (pr *pairsReader) parallel(lr *lineReader, workers int) error {
	todo := make(chan *pairsBatchOf, workers)
	order := make(chan *pairsBatchOf, 2*workers)
	free := make(chan *pairsBatchOf, 3*workers+1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range todo {
				b.parse(pr)
				close(b.done)
			}
		}()
	}
	next := func(first int) *pairsBatchOf {
		var b *pairsBatchOf
		select {
		case b = <-free:
			b.buf, b.ends, b.lines, b.at, b.bytes, b.err = b.buf[:0], b.ends[:0], b.lines[:0], b.at[:0], 0, nil
		default:
			b = &pairsBatchOf{}
		}
		b.first, b.done = first, make(chan struct{})
		return b
	}
	go func() { // the reader: lines into batches, each queued in order and for a worker
		defer close(order)
		defer close(todo)
		b := next(lr.line + 1)
		send := func() bool {
			select {
			case order <- b:
			case <-stop:
				return false
			}
			select {
			case todo <- b:
			case <-stop:
				return false
			}
			return true
		}
		for {
			line, ok := lr.nextBytes()
			if !ok {
				break
			}
			b.buf = append(b.buf, line...)
			b.ends = append(b.ends, len(b.buf))
			b.bytes += int64(len(line)) + 1
			if int64(len(b.buf)) >= pairsBatch {
				if !send() {
					return
				}
				b = next(lr.line + 1)
			}
		}
		if len(b.ends) > 0 {
			send()
		}
	}()
	var err error
	for b := range order {
		<-b.done
		for i, pl := range b.lines {
			if err = pr.accept(pl, b.text(b.at[i])); err != nil {
				break
			}
		}
		pr.read += b.bytes
		pr.sized()
		if err == nil {
			err = b.err
		}
		if err != nil {
			break
		}
		select {
		case free <- b:
		default:
		}
	}
	close(stop)
	for range order { // the reader's last batches, unparsed or not: dropped
	}
	wg.Wait()
	return err
}

// pairsSample is the number of pairs read before ReadPairs sizes its
// slices for the rest of the input.
const pairsSample = 1024

// reserve grows the slices, once pairsSample pairs have been read from the
// first read of left bytes, to the number of pairs the input holds at that
// rate (plus 1/8): one allocation each instead of a doubling series with
// its copies. The estimate is at most left/6 pairs (a line "0 0 0" and its
// newline) and at most rows·cols (pairs are distinct), so it is bounded by
// the input's own size, as the pairs themselves are.
func (p *Pairs) reserve(left, read int64, opt PairsOptions) {
	est := left / read * int64(p.Len()) // left·n/read without overflowing
	est += left % read * int64(p.Len()) / read
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
	if p.Labels != nil {
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
// start when the grid has at most pairSetDenseCells cells.
type pairSet struct {
	cols  int64
	cells int64 // rows·cols, or -1 when that overflows
	bits  []uint64
	set   map[int64]struct{}
}

// pairSetBitsPerPair and pairSetDenseCells decide when a pairSet switches
// to bits (variables only so that a test can exercise both forms).
var pairSetBitsPerPair, pairSetDenseCells int64 = 64, 1 << 23

func newPairSet(rows, cols int) *pairSet {
	s := &pairSet{cols: int64(cols), cells: int64(rows) * int64(cols)}
	if rows != 0 && s.cells/int64(rows) != int64(cols) {
		s.cells = -1
	}
	if s.cells >= 0 && s.cells <= pairSetDenseCells {
		s.bits = make([]uint64, (s.cells+63)/64)
	} else {
		s.set = make(map[int64]struct{})
	}
	return s
}

// add adds the cell (row, col) and reports whether it was already there.
// O(1) amortized (expected, for the map).
func (s *pairSet) add(row, col int) bool {
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
