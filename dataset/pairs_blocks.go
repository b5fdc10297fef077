package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"
)

// The block reader of pairs files (ReadPairs on plain input): the machinery
// of blocks.go — blocks of text cut at line ends, parsed by a worker per
// core, merged in input order — with the pairs file's own parse and merge.
//
// A worker parses its block as if nothing came before it: each line by
// fastPair when it has the common form (digits, blanks, digits, and a
// decimal label in Clinger's exact range, nothing else), else by the
// sequential reader's own field split and parsers (pairFields,
// pairsReader.indices, parseValue). What needs the lines before — a label
// on every pair or on none, no pair twice — is the merge's: it takes a block
// whose pairs are labelled as the pairs before it are, adding its pairs to
// the set of cells in line order; at the first repeated cell it takes the
// block's pairs out of the set again and refuses the block. A block refused
// there, or one with an error of any kind, a line beyond the line bound or
// longer than the largest block, is read again by the sequential reader
// (pairsReader.sequential) from its first byte, after the pairs merged
// before it and with their line count: the first error in line order is
// reported, with the sequential reader's message, and every pair before it
// is read once.
//
// Memory: the pairs' arrays (sized once from the first block, as the
// sequential reader sizes them after pairsSample pairs) and a bounded number
// of blocks in flight — at most 3·workers + 2 blocks of text, and the parsed
// blocks waiting for their merge, whose arrays are used again by later
// blocks.

// pairsBlocksMerged counts the blocks the block reader merged (tests check
// that a large input is read in blocks).
var pairsBlocksMerged atomic.Int64

// pairsBlocks is the blockFormat of ReadPairs.
type pairsBlocks struct {
	p    *pairsReader
	free chan *pairBlock // merged blocks, whose arrays a later block uses again
}

func newPairsBlocks(p *pairsReader) *pairsBlocks {
	return &pairsBlocks{p: p, free: make(chan *pairBlock, 3*workerCount()+2)}
}

// pairBlock is the pairs of one block as a worker parsed them, line numbers
// counted from the block's start.
type pairBlock struct {
	bad    bool    // the sequential reader must read the block
	nlines int     // lines in the block
	nbytes int     // bytes of the block
	has    int     // the pairs are labelled (1) or not (0); -1 without pairs
	gaps   bool    // a line without a pair came before a pair: lines holds their lines
	rows   []int32 // below 2³¹: a larger index is left to the sequential reader
	cols   []int32
	labels []float64
	lines  []int32 // without gaps, pair k is on the block's line k+1 and lines is unused
}

func (pb *pairsBlocks) cut(buf []byte, atEOF bool) int {
	if atEOF {
		return len(buf)
	}
	return bytes.LastIndexByte(buf, '\n') + 1
}

// parse reads the lines of block as lineReader would deliver them (split at
// '\n', one '\r' before it dropped, the byte order mark of the input's first
// line dropped) and parses each as the sequential reader does, up to the
// checks against other lines.
func (pb *pairsBlocks) parse(block []byte, first bool) *pairBlock {
	p := pb.p
	var res *pairBlock
	select {
	case res = <-pb.free:
	default:
		// room for the pairs of lines of 12 bytes; appends grow it for shorter ones
		c := len(block)/12 + 1
		res = &pairBlock{rows: make([]int32, 0, c), cols: make([]int32, 0, c), labels: make([]float64, 0, c)}
	}
	// the arrays in locals while the block is parsed, stored in res at the end
	rs, cs, labels, lines := res.rows[:0], res.cols[:0], res.labels[:0], res.lines[:0]
	*res = pairBlock{has: -1, nbytes: len(block)}
	defer func() { res.rows, res.cols, res.labels, res.lines = rs, cs, labels, lines }()
	rows, cols := uint64(min(max(p.opt.Rows, 0), math.MaxInt32)), uint64(min(max(p.opt.Cols, 0), math.MaxInt32))
	maxLine := p.lim.line
	n, line := len(block), 0
	for i := 0; i < n; {
		line++
		start := i
		row, col, v, has, end, ok := fastPair(block, i, rows, cols, p.opt.Unlabelled)
		if !ok {
			end = n
			if k := bytes.IndexByte(block[i:], '\n'); k >= 0 {
				end = i + k
			}
		}
		i = end + 1
		if maxLine > 0 && int64(end-start) > maxLine && int64(len(bytes.TrimSuffix(block[start:end], []byte("\r")))) > maxLine {
			res.bad = true
			return res
		}
		if !ok {
			b := bytes.TrimSuffix(block[start:end], []byte("\r"))
			if first && line == 1 {
				b = bytes.TrimPrefix(b, []byte("\ufeff"))
			}
			f, nf := pairFields(unsafe.String(unsafe.SliceData(b), len(b)))
			if nf == 0 {
				continue
			}
			var err error
			if row, col, err = p.indices(&f, nf, line); err != nil || row > math.MaxInt32 || col > math.MaxInt32 {
				res.bad = true
				return res
			}
			if has = nf == 3; has {
				if v, err = parseValue(f[2]); err != nil {
					res.bad = true
					return res
				}
			}
		}
		h := 0
		if has {
			h = 1
			labels = append(labels, v)
		}
		if res.has != h {
			if res.has >= 0 {
				res.bad = true // labelled and unlabelled pairs: the sequential reader's message
				return res
			}
			res.has = h
		}
		if !res.gaps && line != len(rs)+1 {
			res.gaps = true
			for k := range rs {
				lines = append(lines, int32(k+1))
			}
		}
		if res.gaps {
			lines = append(lines, int32(line))
		}
		rs, cs = append(rs, int32(row)), append(cs, int32(col))
	}
	res.nlines = line
	return res
}

// fastPair parses the line at block[i:] when it has the common form: digits
// (at most 18) for an index below rows, blanks, digits for an index below
// cols, and either the line's end (when unlabelled) or blanks and a label
// that scanLabel takes in Clinger's exact range, then only blanks to the
// line's end ("blanks" are the bytes isSpace takes, so a '\r' before '\n'
// is one). It returns the pair, the label (has), the index of the line's
// '\n' (or len(block)), and ok; ok is false for any other line (a comment,
// a sign, an error), which the general parser then reads. The values are
// the general parser's: digits are what strconv.Atoi reads them as, and the
// label is fastDecimal's value of the whole field, which is parseValue's.
// O(length of the line), no allocation.
func fastPair(block []byte, i int, rows, cols uint64, unlabelled bool) (row, col int, v float64, has bool, end int, ok bool) {
	n := len(block)
	r, i, ok := scanIndex(block, i, rows)
	if !ok || i >= n || !isSpace(block[i]) {
		return 0, 0, 0, false, 0, false
	}
	for i++; i < n && isSpace(block[i]); i++ {
	}
	c, i, ok := scanIndex(block, i, cols)
	if !ok {
		return 0, 0, 0, false, 0, false
	}
	if i < n && block[i] != '\n' {
		if !isSpace(block[i]) {
			return 0, 0, 0, false, 0, false
		}
		for i++; i < n && isSpace(block[i]); i++ {
		}
		if i < n && block[i] != '\n' {
			if v, i, ok = scanLabel(block, i); !ok {
				return 0, 0, 0, false, 0, false
			}
			has = true
			for ; i < n && isSpace(block[i]); i++ {
			}
			if i < n && block[i] != '\n' {
				return 0, 0, 0, false, 0, false
			}
		}
	}
	if !has && !unlabelled {
		return 0, 0, 0, false, 0, false
	}
	return int(r), int(c), v, has, i, true
}

// scanLabel is scanDecimal for the labels of pairs files, faster on their
// common form: an optional sign, digits and an optional point and digits, 19
// digits at most (so w, the digits as an integer, leading zeros included,
// cannot wrap), w < 2⁵³ and at most 22 of them after the point. Then the
// value is w/10^scale rounded once (or w), what scanDecimal computes for the
// same text (leading zeros add nothing to w, and there is no exponent), and
// the number ends where scanDecimal's does (a letter e or E, which would
// continue it, is left to scanDecimal). Anything else is scanDecimal's
// result on the same text. O(length of the number), no allocation.
func scanLabel(b []byte, i int) (float64, int, bool) {
	n, at := len(b), i
	var sign, skip uint64
	if i < n {
		c := b[i]
		if c == '-' {
			sign = 1 << 63
		}
		if c == '-' || c == '+' {
			skip = 1
		}
	}
	i += int(skip)
	start := i
	var w uint64
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		w = w*10 + uint64(c)
	}
	digits, scale := i-start, 0
	if i < n && b[i] == '.' {
		i++
		frac := i
		if i+8 <= n {
			// eight bytes at once: the digits among them up to the first
			// other byte (a byte is a digit when its high nibble is 3 and
			// adding 6 keeps it 3; a carry out of a byte ≥ 0xfa reaches only
			// bytes after that non-digit), as one number
			x := binary.LittleEndian.Uint64(b[i:])
			nd := (x&0xf0f0f0f0f0f0f0f0 ^ 0x3030303030303030) | ((x+0x0606060606060606)&0xf0f0f0f0f0f0f0f0 ^ 0x3030303030303030)
			k := bits.TrailingZeros64(nd) >> 3
			if k > 0 {
				d := (x - 0x3030303030303030) << (64 - 8*k) // the k digits, as the last of eight
				d = d*10 + d>>8
				d = ((d&0x000000ff000000ff)*(100+1000000<<32) + (d>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
				w = w*pow10u[k] + d
				i += k
			}
			if k == 8 {
				for ; i < n; i++ {
					c := b[i] - '0'
					if c > 9 {
						break
					}
					w = w*10 + uint64(c)
				}
			}
		} else {
			for ; i < n; i++ {
				c := b[i] - '0'
				if c > 9 {
					break
				}
				w = w*10 + uint64(c)
			}
		}
		scale = i - frac
		digits += scale
	}
	if digits == 0 || digits > 19 || w >= 1<<53 || scale > 22 || i < n && b[i]|0x20 == 'e' {
		return scanDecimal(b, at)
	}
	f := float64(w)
	if w != 0 && scale > 0 {
		f /= pow10[scale]
	}
	return math.Float64frombits(math.Float64bits(f) | sign), i, true
}

// pow10u holds 10^k for k ≤ 8.
var pow10u = [9]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// scanIndex reads the digits at b[i:] as an index: its value, the index
// just past the digits, and whether there were 1 to 18 of them (no
// overflow) with a value below m.
func scanIndex(b []byte, i int, m uint64) (uint64, int, bool) {
	start := i
	var v uint64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		v = v*10 + uint64(c)
	}
	return v, i, i > start && i-start <= 18 && v < m
}

// merge takes a block's pairs after the pairs before, when they are
// labelled alike and no cell repeats.
func (pb *pairsBlocks) merge(b *pairBlock) bool {
	defer func() {
		select {
		case pb.free <- b:
		default:
		}
	}()
	if b.bad {
		return false
	}
	p, out := pb.p, pb.p.out
	if n := len(b.rows); n > 0 {
		if p.labelled >= 0 && b.has != p.labelled {
			return false
		}
		for k := range n {
			if p.seen.add(int(b.rows[k]), int(b.cols[k])) {
				for j := range k {
					p.seen.remove(int(b.rows[j]), int(b.cols[j]))
				}
				return false
			}
		}
		p.labelled = b.has
	}
	p.sizeFor(p.read+int64(b.nbytes), out.Len()+len(b.rows), p.labelled == 1)
	base, m, n := p.line, out.Len(), len(b.rows)
	out.Rows = slices.Grow(out.Rows, n)[:m+n]
	out.Cols = slices.Grow(out.Cols, n)[:m+n]
	out.Lines = slices.Grow(out.Lines, n)[:m+n]
	rows, cols, lines := out.Rows[m:], out.Cols[m:], out.Lines[m:]
	for k, r := range b.rows {
		rows[k] = int(r)
	}
	for k, c := range b.cols {
		cols[k] = int(c)
	}
	if b.gaps {
		for k, l := range b.lines {
			lines[k] = base + int(l)
		}
	} else {
		for k := range lines {
			lines[k] = base + k + 1
		}
	}
	if b.has == 1 {
		out.Labels = append(out.Labels, b.labels...)
	}
	p.line += b.nlines
	p.read += int64(b.nbytes)
	pairsBlocksMerged.Add(1)
	return true
}

// sequential reads the rest of the input, from r, with the sequential
// reader, after the pairs merged.
func (pb *pairsBlocks) sequential(r io.Reader) error {
	p := pb.p
	return p.sequential(&lineReader{src: r, br: bufio.NewReaderSize(r, 64<<10), lim: p.lim, line: p.line})
}
