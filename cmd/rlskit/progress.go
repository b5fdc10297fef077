package main

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/rlskit/rlskit/progress"
)

// When progress is shown: a phase is reported once the run is older than
// progressAfter, or at once when its expected duration (a factorization's
// estimate, or a stepped phase's projection) is at least progressLong.
// Tests set both to 0.
var (
	progressAfter = 2 * time.Second
	progressLong  = time.Second
)

// progressLine is the progress shown on stderr: package progress's Line.
type progressLine struct{ *progress.Line }

// newProgress returns the progress line of a command on w.
func newProgress(w io.Writer, quiet bool) *progressLine {
	l := progress.NewLine(w, isTerminal(w), quiet)
	l.After, l.Long, l.Prefix = progressAfter, progressLong, "rlskit: "
	return &progressLine{l}
}

// observe is the progress.Observer of a command.
func (p *progressLine) observe(e progress.Event) { p.Observe(e) }

// stepDetail reports a step with a detail (progress.Line.StepDetail).
func (p *progressLine) stepDetail(stage, detail string, done, total int) {
	p.StepDetail(stage, detail, done, total)
}

// done ends the line (nothing for a nil line).
func (p *progressLine) done() {
	if p != nil {
		p.Done()
	}
}

// isTerminal reports whether w is a terminal (golang.org/x/term: /dev/null
// and other character devices are not).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
