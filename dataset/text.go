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
// and every reader of this package go through it. O(1).
func gunzip(br *bufio.Reader) (io.Reader, error) {
	if !isGzip(br) {
		return br, nil
	}
	src := &byteCounter{br: br}
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, &GzipError{Offset: src.n, Header: true, Err: err}
	}
	return &gzipText{zr: zr, src: src}, nil
}

// textReader returns a buffered reader of r's text, decompressing gzip.
func textReader(r io.Reader) (*bufio.Reader, error) {
	br, _, err := openText(r)
	return br, err
}

// openText is textReader, also reporting whether r was gzip-compressed.
func openText(r io.Reader) (*bufio.Reader, bool, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if !isGzip(br) {
		return br, false, nil
	}
	zr, err := gunzip(br)
	if err != nil {
		return nil, true, err
	}
	return bufio.NewReaderSize(zr, 64<<10), true, nil
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

// gzipText counts the lines it delivers and turns decompression errors into
// *GzipError values.
type gzipText struct {
	zr    *gzip.Reader
	src   *byteCounter
	lines int
}

func (g *gzipText) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
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
