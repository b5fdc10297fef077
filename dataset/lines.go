package dataset

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// lineReader reads a stream one line at a time, counting lines, a line of at
// most the line bound (readLimits; EnvMaxLine). gzip-compressed input is
// decompressed on the fly (see textReader), within the decompression budget.
type lineReader struct {
	src  io.Reader
	br   *bufio.Reader
	gz   *gzipText // the decompressor of gzip input, nil for plain input
	lim  limits
	long []byte // a line longer than br's buffer, gathered
	line int    // number of the line last returned
	err  error  // first read error other than io.EOF, or the bound reached
}

func newLineReader(r io.Reader) *lineReader {
	lr := &lineReader{src: r}
	lr.lim, lr.err = readLimits()
	return lr
}

// next returns the next line without its "\n" or "\r\n" terminator (and, on
// the first line, without a UTF-8 byte order mark). It returns false at the
// end of input or on a read error, which is then left in lr.err: a
// *LimitError for a line longer than the bound, found once the bound (plus a
// terminator) has been read, so memory stays within twice the bound.
func (lr *lineReader) next() (string, bool) {
	b, ok := lr.nextBytes()
	return string(b), ok
}

// nextBytes is next without the copy: the line's bytes in the reader's
// buffer, valid until the next call. A caller that keeps any part of it must
// copy that part.
func (lr *lineReader) nextBytes() ([]byte, bool) {
	if !lr.open() {
		return nil, false
	}
	b, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if max := lr.lim.line; max > 0 && int64(len(lr.long)) > max+2 {
				lr.err, lr.long = lr.lim.lineError("the line", lr.line+1), nil
				return nil, false
			}
			b, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, b...)
		}
		b = lr.long
	}
	if err != nil {
		if err != io.EOF {
			lr.err, lr.long = err, nil
			return nil, false
		}
		if len(b) == 0 {
			lr.long = nil
			return nil, false
		}
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if max := lr.lim.line; max > 0 && int64(len(b)) > max {
		lr.err, lr.long = lr.lim.lineError("the line", lr.line+1), nil
		return nil, false
	}
	lr.line++
	if cap(lr.long) > 1<<20 {
		lr.long = nil // a long line's buffer is not kept (b still holds it)
	}
	if lr.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
	}
	return b, true
}

// open starts reading the input (detecting gzip) unless it has started; false
// when that failed, with the error in lr.err.
func (lr *lineReader) open() bool {
	if lr.err != nil {
		return false
	}
	if lr.br == nil {
		if lr.br, lr.gz, lr.err = openText(lr.src); lr.err != nil {
			return false
		}
	}
	return true
}

// release returns the decompressed bytes read so far to the budget: the
// caller has handed over what it parsed from them.
func (lr *lineReader) release() { lr.gz.release() }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// nextField returns the next whitespace-delimited field of s at or after byte
// i, and the index just past it. The field is "" when there is none.
// fields returns the whitespace-separated fields of the next line, comments
// stripped (none for a blank or comment line); false at the end of the input.
func (lr *lineReader) fields() ([]string, bool) {
	s, ok := lr.next()
	if !ok {
		return nil, false
	}
	s = stripComment(s)
	var out []string
	for tok, i := nextField(s, 0); tok != ""; tok, i = nextField(s, i) {
		out = append(out, tok)
	}
	return out, true
}

func nextField(s string, i int) (string, int) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], j
}

// stripComment removes a '#' comment from s.
func stripComment(s string) string {
	if k := strings.IndexByte(s, '#'); k >= 0 {
		return s[:k]
	}
	return s
}
