package dataset

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadChunks reads a data set in chunks of at most rows data rows and calls fn
// on each, with the number of data rows that came before it, so a caller can
// process a file of any length in memory proportional to rows. The format is
// "csv" or "svmlight"; the options are those of ReadCSV and ReadSVMLight (give
// svmlight a Width, or chunks may differ in width). Errors name the line of
// the whole file. A CSV chunk never splits a quoted field that spans lines.
func ReadChunks(r io.Reader, name, format string, csv CSVOptions, svm SVMLightOptions, rows int, fn func(d *Data, offset int) error) error {
	name = inputName(name)
	if rows < 1 {
		return fmt.Errorf("%w: chunks of %d rows", ErrOptions, rows)
	}
	isCSV := format == "csv"
	if !isCSV && format != "svmlight" {
		return fmt.Errorf("%w: unknown format %q (want csv or svmlight)", ErrOptions, format)
	}
	lr := newLineReader(r)
	var (
		header     string
		headerLine int
		buf        strings.Builder
		first      = 0 // file line of the chunk's first line
		count      = 0 // data rows in the chunk
		quotes     = 0 // '"' seen in the chunk (CSV)
		offset     = 0
		parsed     = false
		withQids   = -1 // -1 unknown, 0 no, 1 yes
	)
	flush := func() error {
		text := buf.String()
		lineShift := first - 1
		if isCSV {
			text = header + "\n" + text
			lineShift = first - 2
		}
		var d *Data
		var err error
		if isCSV {
			d, err = ReadCSV(strings.NewReader(text), name, csv)
		} else {
			d, err = ReadSVMLight(strings.NewReader(text), name, svm)
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && pe.Line > 0 {
				if isCSV && pe.Line == 1 {
					pe.Line = headerLine
				} else {
					pe.Line += lineShift
				}
			}
			return err
		}
		q := 0
		if d.Queries != nil {
			q = 1
		}
		if withQids >= 0 && q != withQids {
			return perr(name, first, 0, "", ErrQid, "query ids on some rows only (this chunk of rows differs from the rows before it)")
		}
		withQids = q
		parsed = true
		if err := fn(d, offset); err != nil {
			return err
		}
		offset += d.Rows()
		buf.Reset()
		count, quotes = 0, 0
		return nil
	}
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		if isCSV && header == "" {
			if strings.TrimSpace(s) == "" {
				continue
			}
			header, headerLine = s, lr.line
			continue
		}
		if buf.Len() == 0 {
			first = lr.line
		}
		buf.WriteString(s)
		buf.WriteByte('\n')
		quotes += strings.Count(s, `"`)
		if t := strings.TrimSpace(s); t != "" && !strings.HasPrefix(t, "#") {
			count++
		}
		if count >= rows && quotes%2 == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if lr.err != nil {
		return readErr(name, lr.line+1, lr.err)
	}
	if count > 0 || !parsed {
		if buf.Len() == 0 {
			first = lr.line + 1
		}
		return flush()
	}
	return nil
}
