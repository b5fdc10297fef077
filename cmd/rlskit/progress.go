package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/rlskit/rlskit/kernel"
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

// grid tells the line what a search's steps count: its points, kernel
// settings (rows × cols) times the λ grid (times the column λ grid), named by
// gridShape.
func (p *progressLine) grid(rows, cols []kernel.Spec, lambdas, colLambdas int) {
	per := int64(lambdas * max(1, colLambdas))
	settings := int64(max(1, len(rows)) * max(1, len(cols)))
	p.SetGrid(progress.Grid{Shape: gridShape(rows, cols, lambdas, colLambdas), Points: settings * per, PerSetting: per})
}

// gridShape names a search's grid axes with more than one value: "13 γ × 21
// λ", "7 γ × 6 col γ × 13 λ", "21 λ × 17 col λ"; kernel settings that differ
// in more than γ are "N kernels" ("N col kernels").
func gridShape(rows, cols []kernel.Spec, lambdas, colLambdas int) string {
	var axes []string
	axis := func(specs []kernel.Spec, prefix string) {
		if len(specs) < 2 {
			return
		}
		onlyGamma := true
		for _, s := range specs[1:] {
			t := s
			t.Gamma = specs[0].Gamma
			onlyGamma = onlyGamma && t == specs[0]
		}
		if onlyGamma {
			axes = append(axes, fmt.Sprintf("%d %sγ", len(specs), prefix))
		} else {
			axes = append(axes, fmt.Sprintf("%d %skernels", len(specs), prefix))
		}
	}
	axis(rows, "")
	axis(cols, "col ")
	axes = append(axes, fmt.Sprintf("%d λ", lambdas))
	if colLambdas > 1 {
		axes = append(axes, fmt.Sprintf("%d col λ", colLambdas))
	}
	return strings.Join(axes, " × ")
}
