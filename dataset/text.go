package dataset

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// GzipError is a read error inside gzip-compressed input: a truncated
// stream, corrupt compressed data, a checksum mismatch or a bad member
// header. It says where the compressed data failed and how many complete
// lines of text had been decompressed before, so a reader's *ParseError
// names the line the data ends in. It wraps the gzip or flate error
// (io.ErrUnexpectedEOF for a truncated file).
type GzipError struct {
	// Offset is the number of compressed bytes consumed when the stream
	// failed: the byte of the file (counting from 0) where the data go bad.
	Offset int64
	// Lines is the number of complete text lines decompressed before.
	Lines int
	// Header is set when the first member's header is not a gzip header.
	Header bool
	Err    error
}

// Error names the compressed byte and what went wrong.
func (e *GzipError) Error() string {
	switch {
	case e.Header:
		return fmt.Sprintf("gzip: bad header: %v", e.Err)
	case errors.Is(e.Err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("gzip: the compressed data end early, at byte %d (a truncated file): %v", e.Offset, e.Err)
	case errors.Is(e.Err, gzip.ErrChecksum):
		return fmt.Sprintf("gzip: checksum mismatch at byte %d (corrupt data): %v", e.Offset, e.Err)
	case errors.Is(e.Err, gzip.ErrHeader):
		return fmt.Sprintf("gzip: bad member header at byte %d (corrupt data after a member): %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("gzip: corrupt compressed data at byte %d: %v", e.Offset, e.Err)
}

// Unwrap returns the gzip or flate error.
func (e *GzipError) Unwrap() error { return e.Err }

// line returns the 1-based line the failure lies in (0 for a bad header).
func (e *GzipError) line() int {
	if e.Header {
		return 0
	}
	return e.Lines + 1
}

// isGzip reports whether br starts with the gzip magic bytes 1f 8b (no text
// file does: 8b cannot start a UTF-8 character).
func isGzip(br *bufio.Reader) bool {
	head, _ := br.Peek(2)
	return len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
}

// gunzip returns br itself, or when br starts with the gzip magic bytes a
// reader of its decompressed members whose errors are *GzipError values.
// It is the one place input is decompressed: Decompress (and so OpenData)
// and every reader of this package go through it. The reader stops with a
// *LimitError (ErrLimit) when the decompressed bytes it holds exceed the
// decompression budget (readLimits; see EnvMaxDecompressed): a reader that
// parses in chunks releases the bytes of each chunk it hands over. A
// malformed RLSKIT_MAX_LINE or RLSKIT_MAX_DECOMPRESSED is an error
// (ErrOptions). O(1).
func gunzip(br *bufio.Reader) (io.Reader, error) {
	if !isGzip(br) {
		return br, nil
	}
	lim, err := readLimits()
	if err != nil {
		return nil, err
	}
	src := &byteCounter{br: br}
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, &GzipError{Offset: src.n, Header: true, Err: err}
	}
	return &gzipText{zr: zr, src: src, lim: lim}, nil
}

// textReader returns a buffered reader of r's text, decompressing gzip.
func textReader(r io.Reader) (*bufio.Reader, error) {
	br, _, err := openText(r)
	return br, err
}

// openText is textReader, also returning the decompressor of gzip input
// (nil for plain input): r's own, when r is already a decompressed stream
// (Decompress, OpenData), or the one it starts.
func openText(r io.Reader) (*bufio.Reader, *gzipText, error) {
	gz := decompressorOf(r)
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if !isGzip(br) {
		return br, gz, nil
	}
	zr, err := gunzip(br)
	if err != nil {
		return nil, nil, err
	}
	return bufio.NewReaderSize(zr, 64<<10), zr.(*gzipText), nil
}

// decompressorOf returns the decompressor r reads from, when r is one
// (Decompress) or an open data file reading through one (OpenData).
func decompressorOf(r io.Reader) *gzipText {
	switch v := r.(type) {
	case *gzipText:
		return v
	case *DataFile:
		if g, ok := v.Reader.(*gzipText); ok {
			return g
		}
	}
	return nil
}

// byteCounter counts the compressed bytes the decompressor consumes.
type byteCounter struct {
	br *bufio.Reader
	n  int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *byteCounter) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// gzipText counts the lines it delivers, turns decompression errors into
// *GzipError values, and stops with a *LimitError when the bytes it delivered
// since the last release, and the memory its reader charged for the values
// it parsed from them, exceed the decompression budget.
type gzipText struct {
	zr    *gzip.Reader
	src   *byteCounter
	lines int
	lim   limits
	held  int64 // bytes delivered since the last release
	err   error // the limit reached, returned by every later Read
}

func (g *gzipText) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	b := g.lim.budget
	if b > 0 && int64(len(p)) > b-g.held {
		// at most up to the budget; once there, one byte more tells
		// whether the data go on
		p = p[:max(b-g.held, 1)]
	}
	n, err := g.zr.Read(p)
	if b > 0 && g.held+int64(n) > b { // g.held == b, n == 1: nothing delivered
		g.err = g.lim.budgetError(heldText, 0, g.lines+1)
		return 0, g.err
	}
	g.held += int64(n)
	for _, c := range p[:n] {
		if c == '\n' {
			g.lines++
		}
	}
	if err != nil && err != io.EOF {
		var ce flate.CorruptInputError
		if errors.As(err, &ce) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) ||
			errors.Is(err, gzip.ErrHeader) {
			err = &GzipError{Offset: g.src.n, Lines: g.lines, Err: err}
		}
	}
	return n, err
}

// charge counts n more bytes of memory that a parser holds from the data it
// read (its parsed values), or returns the *LimitError, naming line, of data
// beyond the budget. A nil decompressor (plain input) charges nothing.
func (g *gzipText) charge(n int64, line int) error {
	if g == nil || g.lim.budget <= 0 {
		return nil
	}
	if g.err != nil {
		return g.err
	}
	g.held += n
	if g.held > g.lim.budget {
		g.err = g.lim.budgetError(heldText, 0, line)
		return g.err
	}
	return nil
}

// heldText names what the budget counts for text input.
const heldText = "the memory held from the decompressed input (its text and the values parsed)"

// release returns the bytes delivered so far to the budget: a reader calls
// it when it hands over what it parsed from them (a chunk).
func (g *gzipText) release() {
	if g != nil {
		g.held = 0
	}
}
