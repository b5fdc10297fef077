package main

import (
	"bufio"
	"fmt"
	"io"
)

// lineWriter is a buffered writer that remembers the first error.
type lineWriter struct {
	w   *bufio.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: bufio.NewWriter(w)} }

func (l *lineWriter) printf(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, args...)
	}
}

func (l *lineWriter) flush() error {
	if l.err != nil {
		return l.err
	}
	return l.w.Flush()
}
