package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress reports long work on stderr: nothing for the first two seconds, then
// one line per step — rewritten in place on a terminal, appended otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	start time.Time
	shown bool
}

func newProgress(w io.Writer, quiet bool) *progress {
	return &progress{w: w, tty: isTerminal(w), quiet: quiet, start: time.Now()}
}

// step reports that done of total units of the named stage are finished.
func (p *progress) step(stage string, done, total int) {
	if p.quiet || time.Since(p.start) < 2*time.Second {
		return
	}
	p.shown = true
	msg := fmt.Sprintf("rlskit: %s %d/%d (%.1fs)", stage, done, total, time.Since(p.start).Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\033[K", msg)
	} else {
		fmt.Fprintln(p.w, msg)
	}
}

// done ends a terminal progress line.
func (p *progress) done() {
	if p.shown && p.tty {
		fmt.Fprintln(p.w)
	}
}

// isTerminal reports whether w is a terminal (golang.org/x/term: /dev/null
// and other character devices are not).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
