package dataset

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// Whole-file reads of plain text (ReadSVMLight, ReadCSV) parse the input in
// blocks on all cores. The input is read in blocks of readBlock bytes cut
// after a record's end (a line break; outside quotes for CSV), each block is
// parsed by a worker into rows of its own, and the blocks are merged in input
// order, so the rows are those of the sequential reader, in its order. A
// worker parses its block as if the block began the input (it learns the
// number of labels, the presence of qids and the query names from the
// block's first rows): the merge checks that the block agrees with the rows
// before it and renumbers its query codes. A block that meets anything the
// sequential reader must judge — an error of any kind, a block that
// disagrees with the rows before it, a record longer than the largest block
// (maxBlockGrowth), a read error — is not merged: the sequential reader (the
// one ReadChunks drives) reads the input again from that block's first byte,
// with the line count and the state of the rows before, so every error names
// the same file, line, column and token as a sequential read does, and
// everything before it is read once.
//
// Memory: the rows parsed, once in the blocks and once in the final arrays,
// which are allocated at their exact sizes when the blocks are joined (the
// sequential reader's growing arrays peak at about the same, up to 2.25
// times their final size, and copy each value about four times as they
// grow); plus at most 3·workers + 2 blocks of text in flight (of 256 KiB,
// or as large as the longest record, up to 8 MiB).

// readBlock is the bytes of text a worker parses at a time (a variable so
// that tests can cut small inputs into many blocks).
var readBlock = 256 << 10

// maxBlockGrowth bounds the blocks: a record longer than a block doubles it,
// up to maxBlockGrowth·readBlock bytes (8 MiB); a record longer than that is
// read sequentially, with the rest of the input.
const maxBlockGrowth = 32

// readWorkers, when positive, is the number of workers (tests); otherwise
// GOMAXPROCS, at most maxReadWorkers.
var readWorkers = 0

const maxReadWorkers = 16

func workerCount() int {
	if readWorkers > 0 {
		return readWorkers
	}
	return min(runtime.GOMAXPROCS(0), maxReadWorkers)
}

// blockFormat is a format's side of the block reader. cut returns the length
// of the longest prefix of buf made of whole records, the whole of buf at the
// end of the input (atEOF), 0 when buf holds no record's end. parse runs on a
// worker; merge, in input order on the calling goroutine, returns false for
// a block to be read again sequentially, and sequential then reads from r —
// the refused block's text and everything after it — to the end.
type blockFormat[R any] interface {
	cut(buf []byte, atEOF bool) int
	parse(block []byte, first bool) R
	merge(res R) bool
	sequential(r io.Reader) error
}

// textJob is one block of text: to parse, or (last) for the sequential
// reader, followed by the rest of the source (rest) or a read error.
type textJob[R any] struct {
	data  []byte
	first bool
	last  bool  // the sequential reader's: no parse
	rest  bool  // the source follows data
	err   error // the read error that follows data (not io.EOF)
	done  chan R
}

// fill reads into b until b is full, the input ends (io.EOF) or the reader
// fails; it returns the bytes read and the error, which follows them.
func fill(r io.Reader, b []byte) (int, error) {
	n, empty := 0, 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
		if k == 0 {
			if empty++; empty >= 100 {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}

// handOvers counts the blocks refused and read again sequentially (tests
// check that well-formed input is not).
var handOvers atomic.Int64

// readBlocks reads src through f, in blocks parsed by workers goroutines.
// It returns f.sequential's error when a block was refused, else nil.
func readBlocks[R any](src io.Reader, f blockFormat[R]) error {
	workers := workerCount()
	size := max(readBlock, 1)
	buf := make([]byte, size)
	n, err := fill(src, buf)
	if err != nil && err != io.EOF {
		handOvers.Add(1)
		return f.sequential(io.MultiReader(bytes.NewReader(buf[:n]), errReader{err}))
	}
	if err == io.EOF { // the whole input in one block: no goroutines
		if n == 0 {
			return nil
		}
		if f.merge(f.parse(buf[:n], true)) {
			return nil
		}
		handOvers.Add(1)
		return f.sequential(bytes.NewReader(buf[:n]))
	}

	var (
		work    = make(chan *textJob[R], workers)
		pending = make(chan *textJob[R], 2*workers)
		stop    = make(chan struct{})
		free    = make(chan []byte, 3*workers+2)
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.done <- f.parse(j.data, j.first)
			}
		}()
	}
	// The producer reads the blocks; on stop, or at a read error or a line
	// longer than a block, it hands what it holds to a last job and ends.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(pending)
		defer close(work)
		first := true
		for {
			if err == io.EOF && n == 0 {
				return
			}
			cutAt := 0
			if err == nil || err == io.EOF {
				cutAt = f.cut(buf[:n], err == io.EOF)
			}
			if cutAt == 0 && err == nil && len(buf) < maxBlockGrowth*size {
				// a record longer than the block: twice the block
				grown := make([]byte, 2*len(buf))
				copy(grown, buf[:n])
				buf = grown
				var k int
				k, err = fill(src, buf[n:])
				n += k
				continue
			}
			if cutAt == 0 { // a read error, or a record longer than the largest block
				pending <- &textJob[R]{data: buf[:n], last: true, rest: err == nil, err: errUnlessEOF(err)}
				return
			}
			j := &textJob[R]{data: buf[:cutAt], first: first, done: make(chan R, 1)}
			first = false
			select {
			case pending <- j:
			case <-stop:
				pending <- &textJob[R]{data: buf[:n], last: true, rest: err == nil}
				return
			}
			work <- j
			if err == io.EOF && cutAt == n {
				return
			}
			var next []byte
			select {
			case next = <-free:
			default:
			}
			if len(next) < len(buf) { // the block grew since: at its size
				next = make([]byte, len(buf))
			}
			carry := copy(next, buf[cutAt:n])
			buf = next
			select {
			case <-stop:
				pending <- &textJob[R]{data: buf[:carry], last: true, rest: err == nil}
				return
			default:
			}
			if err == io.EOF {
				n = carry
				continue
			}
			var k int
			k, err = fill(src, buf[carry:])
			n = carry + k
		}
	}()

	var refused []io.Reader // the text the sequential reader reads again
	for j := range pending {
		if refused == nil && !j.last {
			if res := <-j.done; f.merge(res) {
				select {
				case free <- j.data[:cap(j.data)]:
				default:
				}
				continue
			}
			close(stop)
		}
		if refused == nil {
			refused = []io.Reader{}
		}
		refused = append(refused, bytes.NewReader(j.data))
		if j.last {
			if j.rest {
				refused = append(refused, src)
			}
			if j.err != nil {
				refused = append(refused, errReader{j.err})
			}
		}
	}
	// pending is closed: the producer has ended and reads src no more
	wg.Wait()
	if refused == nil {
		return nil
	}
	handOvers.Add(1)
	return f.sequential(io.MultiReader(refused...))
}

func errUnlessEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// errReader returns its error on every read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// svmBlocks reads an svmlight input in blocks into the parser g.
type svmBlocks struct {
	g       *svmParser
	blocks  []*svmBlock
	scratch sync.Pool // *svmParser, a worker's
}

// svmBlock is the rows of one block, as a worker parsed them.
type svmBlock struct {
	bad       bool // the sequential reader must read it
	lines     int
	rows      int
	t         int
	hasQid    bool
	firstLine int // within the block
	maxIdx    int
	hasIdx    bool
	sawZero   bool
	atWidth   *ParseError // line within the block
	qnames    []string    // the block's query names, in order of appearance
	labels    []float64
	indptr    []int // rows+1 offsets into indices
	indices   []int
	values    []float64
	queries   []int // codes into qnames
}

func (s *svmBlocks) cut(buf []byte, atEOF bool) int {
	if atEOF {
		return len(buf)
	}
	return bytes.LastIndexByte(buf, '\n') + 1
}

// parse reads the lines of block as lineReader would deliver them.
func (s *svmBlocks) parse(block []byte, first bool) *svmBlock {
	g := s.g
	w, _ := s.scratch.Get().(*svmParser)
	if w == nil {
		w = &svmParser{lr: &lineReader{}}
	}
	*w = svmParser{name: g.name, opt: g.opt, base: g.base, lr: w.lr,
		labels: w.labels[:0], indptr: append(w.indptr[:0], 0), indices: w.indices[:0], values: w.values[:0], queries: w.queries[:0]}
	w.lr.lim = g.lr.lim
	defer s.scratch.Put(w)
	res := &svmBlock{}
	for len(block) > 0 {
		b := block
		if k := bytes.IndexByte(block, '\n'); k >= 0 {
			b, block = block[:k], block[k+1:]
		} else {
			block = nil
		}
		b = bytes.TrimSuffix(b, []byte("\r"))
		res.lines++
		if max := w.lr.lim.line; max > 0 && int64(len(b)) > max {
			res.bad = true
			return res
		}
		if first && res.lines == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if _, err := w.parseLine(b, res.lines); err != nil {
			res.bad = true
			return res
		}
	}
	res.rows, res.t, res.hasQid, res.firstLine = w.total, w.t, w.hasQid, w.firstLine
	res.maxIdx, res.hasIdx, res.sawZero, res.atWidth = w.maxIdx, w.hasIdx, w.sawZero, w.atWidth
	res.qnames = append([]string(nil), w.qnames...)
	res.labels = append([]float64(nil), w.labels...)
	res.indptr = append([]int(nil), w.indptr...)
	res.indices = append([]int(nil), w.indices...)
	res.values = append([]float64(nil), w.values...)
	if w.hasQid {
		res.queries = append([]int(nil), w.queries...)
	}
	return res
}

// merge takes a block's rows after the rows before, when they agree.
func (s *svmBlocks) merge(b *svmBlock) bool {
	g := s.g
	if b.bad {
		return false
	}
	if b.rows > 0 {
		if g.total == 0 {
			g.t, g.hasQid, g.firstLine = b.t, b.hasQid, g.lr.line+b.firstLine
			if g.hasQid {
				g.qcode = make(map[string]int)
			}
		} else if b.t != g.t || b.hasQid != g.hasQid {
			return false
		}
	}
	if len(b.qnames) > 0 {
		codes := make([]int, len(b.qnames))
		for k, q := range b.qnames {
			c, ok := g.qcode[q]
			if !ok {
				c = len(g.qnames)
				g.qcode[q] = c
				g.qnames = append(g.qnames, q)
			}
			codes[k] = c
		}
		for i, c := range b.queries {
			b.queries[i] = codes[c]
		}
	}
	if b.hasIdx {
		g.maxIdx = max(g.maxIdx, b.maxIdx)
		g.hasIdx = true
	}
	g.sawZero = g.sawZero || b.sawZero
	if g.atWidth == nil && b.atWidth != nil {
		e := *b.atWidth
		e.Line += g.lr.line
		g.atWidth = &e
	}
	g.total += b.rows
	g.lr.line += b.lines
	b.qnames = nil
	s.blocks = append(s.blocks, b)
	return true
}

// join appends the merged blocks' rows to g's, in arrays of the exact size.
func (s *svmBlocks) join() {
	g := s.g
	if len(s.blocks) == 0 {
		return
	}
	rows, nnz := g.m, len(g.indices)
	for _, b := range s.blocks {
		rows += b.rows
		nnz += len(b.indices)
	}
	labels := make([]float64, 0, rows*g.t)
	indptr := make([]int, 0, rows+1)
	indices := make([]int, 0, nnz)
	values := make([]float64, 0, nnz)
	var queries []int
	if g.hasQid {
		queries = make([]int, 0, rows)
	}
	labels = append(labels, g.labels...)
	indptr = append(indptr, g.indptr...)
	indices = append(indices, g.indices...)
	values = append(values, g.values...)
	queries = append(queries, g.queries...)
	for k, b := range s.blocks {
		off := len(indices)
		labels = append(labels, b.labels...)
		for _, e := range b.indptr[1:] {
			indptr = append(indptr, off+e)
		}
		indices = append(indices, b.indices...)
		values = append(values, b.values...)
		queries = append(queries, b.queries...)
		g.m += b.rows
		s.blocks[k] = nil
	}
	g.labels, g.indptr, g.indices, g.values, g.queries = labels, indptr, indices, values, queries
	s.blocks = s.blocks[:0]
}

// sequential reads the rest of the input, from r, with the sequential reader.
func (s *svmBlocks) sequential(r io.Reader) error {
	s.join()
	g := s.g
	g.lr = &lineReader{src: r, br: bufio.NewReaderSize(r, 64<<10), lim: g.lr.lim, line: g.lr.line}
	for {
		ok, err := g.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
}

// csvBlocks reads the records of a CSV input after its header, in blocks,
// into the parser g.
type csvBlocks struct {
	g       *csvParser
	blocks  []*csvBlock
	scratch sync.Pool // *csvParser, a worker's
}

// csvBlock is the rows of one block, as a worker parsed them.
type csvBlock struct {
	bad     bool
	lines   int
	rows    int
	qnames  []string
	xs, ys  []float64
	queries []int
}

// cut ends a block after the last line break outside quotes. Blocks start
// where a record starts, so a quote opens or closes a quoted field ("" in one
// closes and reopens it): in input that follows the rules, a line break
// after an even number of quotes ends a record. Input that breaks them
// (a quote in an unquoted field) may be cut inside a record; the block with
// the offending quote then fails to parse and is read again sequentially,
// from its start, which is a record's start.
func (c *csvBlocks) cut(buf []byte, atEOF bool) int {
	if atEOF {
		return len(buf)
	}
	last, i := -1, 0
	for {
		q := bytes.IndexByte(buf[i:], '"')
		seg := buf[i:]
		if q >= 0 {
			seg = buf[i : i+q]
		}
		if k := bytes.LastIndexByte(seg, '\n'); k >= 0 {
			last = i + k
		}
		if q < 0 {
			break
		}
		i += q + 1
		q = bytes.IndexByte(buf[i:], '"') // the closing quote
		if q < 0 {
			break
		}
		i += q + 1
	}
	return last + 1
}

// parse reads the records of block with a parser that shares g's header.
func (c *csvBlocks) parse(block []byte, _ bool) *csvBlock {
	g := c.g
	w, _ := c.scratch.Get().(*csvParser)
	if w == nil {
		w = &csvParser{r: newCSVReader(g.r.comma, g.r.lim), labRow: make([]float64, len(g.labRow))}
	}
	defer c.scratch.Put(w)
	r := w.r
	r.text, r.line = block, 0
	*w = csvParser{name: g.name, r: r, headerLine: g.headerLine, ncol: g.ncol, roles: g.roles, labels: g.labels,
		featNames: g.featNames, qidCol: g.qidCol, svmHint: g.svmHint, labRow: w.labRow,
		xs: w.xs[:0], ys: w.ys[:0], queries: w.queries[:0]}
	if g.qidCol >= 0 {
		w.qcode = make(map[string]int)
	}
	res := &csvBlock{}
	for {
		ok, err := w.next()
		if err != nil {
			res.bad = true
			return res
		}
		if !ok {
			break
		}
	}
	res.lines, res.rows = r.line, w.total
	res.qnames = w.qnames
	res.xs = append([]float64(nil), w.xs...)
	res.ys = append([]float64(nil), w.ys...)
	if g.qidCol >= 0 {
		res.queries = append([]int(nil), w.queries...)
	}
	return res
}

// merge takes a block's rows after the rows before.
func (c *csvBlocks) merge(b *csvBlock) bool {
	g := c.g
	if b.bad {
		return false
	}
	if len(b.qnames) > 0 {
		codes := make([]int, len(b.qnames))
		for k, q := range b.qnames {
			code, ok := g.qcode[q]
			if !ok {
				code = len(g.qnames)
				g.qcode[q] = code
				g.qnames = append(g.qnames, q)
			}
			codes[k] = code
		}
		for i, code := range b.queries {
			b.queries[i] = codes[code]
		}
	}
	g.total += b.rows
	g.r.line += b.lines
	b.qnames = nil
	c.blocks = append(c.blocks, b)
	return true
}

// join appends the merged blocks' rows to g's, in arrays of the exact size.
func (c *csvBlocks) join() {
	g := c.g
	if len(c.blocks) == 0 {
		return
	}
	nx, ny, nq := len(g.xs), len(g.ys), len(g.queries)
	for _, b := range c.blocks {
		nx, ny, nq = nx+len(b.xs), ny+len(b.ys), nq+len(b.queries)
	}
	xs := append(make([]float64, 0, nx), g.xs...)
	ys := append(make([]float64, 0, ny), g.ys...)
	var queries []int
	if g.qidCol >= 0 {
		queries = append(make([]int, 0, nq), g.queries...)
	}
	for k, b := range c.blocks {
		xs = append(xs, b.xs...)
		ys = append(ys, b.ys...)
		queries = append(queries, b.queries...)
		g.m += b.rows
		c.blocks[k] = nil
	}
	g.xs, g.ys, g.queries = xs, ys, queries
	c.blocks = c.blocks[:0]
}

// sequential reads the rest of the input, from r, with the sequential reader.
func (c *csvBlocks) sequential(r io.Reader) error {
	c.join()
	g := c.g
	cr := newCSVReader(g.r.comma, g.r.lim)
	cr.src, cr.line = bufio.NewReaderSize(r, 64<<10), g.r.line
	g.r = cr
	for {
		ok, err := g.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
}
