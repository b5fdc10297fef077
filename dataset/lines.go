package dataset

import (
	"bufio"
	"io"
	"strings"
)

// lineReader reads a stream one line at a time, of any length, counting lines.
// gzip-compressed input is decompressed on the fly (see textReader).
type lineReader struct {
	src  io.Reader
	br   *bufio.Reader
	line int   // number of the line last returned
	err  error // first read error other than io.EOF
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{src: r}
}

// next returns the next line without its "\n" or "\r\n" terminator (and, on
// the first line, without a UTF-8 byte order mark). It returns false at the
// end of input or on a read error, which is then left in lr.err.
func (lr *lineReader) next() (string, bool) {
	if lr.err != nil {
		return "", false
	}
	if lr.br == nil {
		if lr.br, lr.err = textReader(lr.src); lr.err != nil {
			return "", false
		}
	}
	s, err := lr.br.ReadString('\n')
	if err != nil {
		if err != io.EOF {
			lr.err = err
			return "", false
		}
		if s == "" {
			return "", false
		}
	}
	lr.line++
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	if lr.line == 1 {
		s = strings.TrimPrefix(s, "\ufeff")
	}
	return s, true
}

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
