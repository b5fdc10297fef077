package dataset

import (
	"fmt"
	"io"
	"strings"
)

// rowParser is a streaming reader of one data format: next parses the next
// data row into the pending rows, take hands them over as a data set.
// ReadCSV, ReadSVMLight and ReadChunks all drive one, so a file is read by the
// same rules whatever the chunking.
type rowParser interface {
	next() (bool, error)
	pending() int
	take() (*Data, error)
	emptyError() error
}

// readWhole reads every row of p into one data set.
func readWhole(p rowParser) (*Data, error) {
	for {
		ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	if p.pending() == 0 {
		return nil, p.emptyError()
	}
	return p.take()
}

// ReadChunks reads a data set in chunks of at most rows data rows and calls fn
// on each, with the number of data rows that came before it, so a caller can
// process a file of any length in memory proportional to rows. The format is
// "csv" or "svmlight"; the options are those of ReadCSV and ReadSVMLight.
//
// One parser reads the whole input, so the chunks are exactly the rows
// ReadCSV or ReadSVMLight return for the whole file, and the rules are the
// same: an input that the whole-file reader refuses is refused here with the
// same error (file line, column and token), after fn has seen the chunks
// before the offending row. Across chunks, the CSV header (and the labels it
// gives with CSVOptions.LabelsFromHeader) is read once, the number of
// svmlight labels per row and the presence of qids are fixed by the first row,
// and query codes are numbered over the whole input: a chunk's QueryNames
// holds every name seen so far. A chunk's svmlight width is SVMLightOptions.Width,
// or else the largest index read so far; SVMLightOptions.Dense needs a Width
// (ErrOptions), so that every chunk has the same columns. An input without
// data rows is an error (ErrEmpty), and fn is not called. The bounds are
// those of the whole-file readers, with the decompression budget
// (EnvMaxDecompressed) applying to each chunk's text: a gzip stream of any
// length is read, a chunk that would hold more is refused (ErrLimit).
func ReadChunks(r io.Reader, name, format string, csv CSVOptions, svm SVMLightOptions, rows int, fn func(d *Data, offset int) error) error {
	name = inputName(name)
	if rows < 1 {
		return fmt.Errorf("%w: chunks of %d rows", ErrOptions, rows)
	}
	if fn == nil {
		return fmt.Errorf("%w: ReadChunks: nil function", ErrOptions)
	}
	var (
		p   rowParser
		err error
	)
	switch strings.ToLower(format) {
	case "csv":
		p, err = newCSVParser(r, name, csv)
	case "svmlight":
		if svm.Dense && svm.Width <= 0 {
			return fmt.Errorf("%w: %s: dense svmlight chunks need a width", ErrOptions, name)
		}
		p, err = newSVMParser(r, name, svm)
	default:
		return fmt.Errorf("%w: unknown format %q (want csv or svmlight)", ErrOptions, format)
	}
	if err != nil {
		return err
	}
	offset := 0
	flush := func() error {
		d, err := p.take()
		if err != nil {
			return err
		}
		n := d.Rows()
		if err := fn(d, offset); err != nil {
			return err
		}
		offset += n
		return nil
	}
	for {
		ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if p.pending() >= rows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if p.pending() > 0 {
		return flush()
	}
	if offset == 0 {
		return p.emptyError()
	}
	return nil
}
