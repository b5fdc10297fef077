package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"unicode/utf8"
)

// csvReader reads CSV records (RFC 4180) by the rules of encoding/csv's
// Reader with its defaults — the reader this package used before, and the
// oracle of its tests: fields are cut at the delimiter; a field that starts
// with a quote is quoted, "" in it is a quote, and it may hold delimiters and
// line breaks; after its closing quote comes a delimiter or the end of the
// record, anything else is an error (csv.ErrQuote), as is a quote in an
// unquoted field (csv.ErrBareQuote) and a quoted field the input ends in;
// "\r\n" is read as "\n", a '\r' just before the end of the input is
// dropped, and empty lines are skipped. Unlike encoding/csv it reads a line
// without quotes in place (the common case: the fields are the line cut at
// the delimiter, nothing is copied), it reads a block of text in memory as
// well as a stream, and it bounds a record's length as it reads it: a record
// longer than limit bytes (without its final line break) is a *LimitError
// naming the line it starts on, found with at most limit + 2 bytes of it
// held (plus the stream's buffer), so a record costs at most about twice the
// bound (the line gathered and the fields' bytes).
type csvReader struct {
	comma    rune
	commaLen int
	commaB   byte          // comma when it is one byte, else 0
	src      *bufio.Reader // the stream; nil: text
	text     []byte        // without src, the text not read yet
	lim      limits        // lim.line bounds a record (0: none)
	line     int           // lines read
	long     []byte        // a line longer than src's buffer, gathered
	lastTerm int           // the bytes readLine dropped from the end of its line

	// the record last read
	recLine  int
	recBytes int64  // its bytes so far, line breaks included
	simple   []byte // its one line, when it holds no quote; nil otherwise
	buf      []byte // the fields' bytes of a record with quotes
	bounds   []int  // start and end of each field, in simple or buf
	lines    []int  // the line each field starts on (records with quotes)
	split    bool   // bounds are set
}

// csvSyntaxError is a quoting error of a record, at a line and a (1-based)
// byte column, as encoding/csv reports it.
type csvSyntaxError struct {
	line, col int
	err       error // csv.ErrBareQuote or csv.ErrQuote
}

func (e *csvSyntaxError) Error() string {
	return fmt.Sprintf("line %d, byte %d: %v", e.line, e.col, e.err)
}

func newCSVReader(comma rune, lim limits) *csvReader {
	r := &csvReader{comma: comma, commaLen: utf8.RuneLen(comma), lim: lim}
	if comma < utf8.RuneSelf {
		r.commaB = byte(comma)
	}
	return r
}

// readLine returns the next line without its line break ("\n" or "\r\n"),
// whether it had a "\n", and io.EOF when no byte is left. A line that ends
// the input without "\n" loses a final '\r', as encoding/csv has it.
func (r *csvReader) readLine() ([]byte, bool, error) {
	var b []byte
	if r.src == nil {
		if len(r.text) == 0 {
			return nil, false, io.EOF
		}
		if k := bytes.IndexByte(r.text, '\n'); k >= 0 {
			b, r.text = r.text[:k+1], r.text[k+1:]
		} else {
			b, r.text = r.text, nil
		}
	} else {
		var err error
		b, err = r.src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			r.long = append(r.long[:0], b...)
			for err == bufio.ErrBufferFull {
				if max := r.lim.line; max > 0 && r.recBytes+int64(len(r.long)) > max+2 {
					r.long = nil
					return nil, false, r.lim.lineError("the CSV record", r.recLine)
				}
				b, err = r.src.ReadSlice('\n')
				r.long = append(r.long, b...)
			}
			b = r.long
			if cap(r.long) > 1<<20 {
				r.long = nil // a long line's buffer is not kept (b still holds it)
			}
		}
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		if len(b) == 0 {
			return nil, false, io.EOF
		}
	}
	r.line++
	r.recBytes += int64(len(b))
	n, nl := len(b), false
	switch {
	case b[n-1] == '\n':
		nl, b = true, b[:n-1]
		if n >= 2 && b[n-2] == '\r' {
			b = b[:n-2]
		}
	case b[n-1] == '\r':
		b = b[:n-1]
	}
	r.lastTerm = n - len(b)
	return b, nl, nil
}

// over reports whether the record read so far exceeds the bound.
func (r *csvReader) over() bool {
	return r.lim.line > 0 && r.recBytes-int64(r.lastTerm) > r.lim.line
}

// read reads the next record: io.EOF at the end of the input, a
// *csvSyntaxError, a *LimitError or a read error.
func (r *csvReader) read() error {
	r.simple, r.buf, r.bounds, r.lines, r.split = nil, r.buf[:0], r.bounds[:0], r.lines[:0], false
	var (
		line []byte
		nl   bool
		err  error
	)
	for {
		r.recBytes, r.recLine = 0, r.line+1
		if line, nl, err = r.readLine(); err != nil {
			return err
		}
		if r.over() {
			return r.lim.lineError("the CSV record", r.recLine)
		}
		if len(line) > 0 {
			break
		}
	}
	if bytes.IndexByte(line, '"') < 0 {
		r.simple = line
		return nil
	}
	r.split = true
	pos, col := r.line, 1 // where the next field starts
	for {
		if len(line) == 0 || line[0] != '"' { // an unquoted field
			i := r.index(line)
			field := line
			if i >= 0 {
				field = line[:i]
			}
			if j := bytes.IndexByte(field, '"'); j >= 0 {
				return &csvSyntaxError{line: r.line, col: col + j, err: csv.ErrBareQuote}
			}
			start := len(r.buf)
			r.buf = append(r.buf, field...)
			r.bounds = append(r.bounds, start, len(r.buf))
			r.lines = append(r.lines, pos)
			if i < 0 {
				return nil
			}
			line, col = line[i+r.commaLen:], col+i+r.commaLen
			continue
		}
		// a quoted field
		fieldLine, start := pos, len(r.buf)
		line, col = line[1:], col+1
		for {
			if i := bytes.IndexByte(line, '"'); i >= 0 {
				r.buf = append(r.buf, line[:i]...)
				line, col = line[i+1:], col+i+1
				if len(line) > 0 && line[0] == '"' { // "" is a quote
					r.buf = append(r.buf, '"')
					line, col = line[1:], col+1
					continue
				}
				r.bounds = append(r.bounds, start, len(r.buf))
				r.lines = append(r.lines, fieldLine)
				switch {
				case len(line) == 0:
					return nil
				case r.atComma(line):
					line, col = line[r.commaLen:], col+r.commaLen
				default:
					return &csvSyntaxError{line: r.line, col: col - 1, err: csv.ErrQuote}
				}
				break
			}
			if len(line) == 0 && !nl { // the input ends inside the quotes
				return &csvSyntaxError{line: pos, col: col, err: csv.ErrQuote}
			}
			r.buf = append(r.buf, line...)
			col += len(line)
			if nl {
				r.buf = append(r.buf, '\n')
				col++
			}
			line, nl, err = r.readLine()
			switch {
			case err == io.EOF:
				line, nl = nil, false
			case err != nil:
				return err
			case r.over():
				return r.lim.lineError("the CSV record", r.recLine)
			}
			if len(line) > 0 || nl {
				pos, col = pos+1, 1
			}
		}
		pos = r.line
	}
}

// index returns the index of the first delimiter in b, or -1.
func (r *csvReader) index(b []byte) int {
	if r.commaB != 0 {
		return bytes.IndexByte(b, r.commaB)
	}
	return bytes.IndexRune(b, r.comma)
}

// atComma reports whether b starts with the delimiter.
func (r *csvReader) atComma(b []byte) bool {
	if r.commaB != 0 {
		return b[0] == r.commaB
	}
	c, _ := utf8.DecodeRune(b)
	return c == r.comma
}

// fields returns the number of fields of the record.
func (r *csvReader) fields() int {
	if !r.split {
		r.split = true
		line, off := r.simple, 0
		for {
			i := r.index(line[off:])
			if i < 0 {
				r.bounds = append(r.bounds, off, len(line))
				break
			}
			r.bounds = append(r.bounds, off, off+i)
			off += i + r.commaLen
		}
	}
	return len(r.bounds) / 2
}

// field returns field j of the record (after fields), valid until the next
// read.
func (r *csvReader) field(j int) []byte {
	base := r.buf
	if r.simple != nil {
		base = r.simple
	}
	return base[r.bounds[2*j]:r.bounds[2*j+1]]
}

// fieldLine returns the line field j starts on.
func (r *csvReader) fieldLine(j int) int {
	if r.simple != nil {
		return r.recLine
	}
	return r.lines[j]
}
