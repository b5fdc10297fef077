package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/stream"
	"github.com/rlskit/rlskit/summary"
)

// fit --stream: the data are read in passes and never held (package stream
// does every computation; this file turns flags into stream.Options, reports
// progress and writes the results).

// runStream is fit --stream.
func runStream(e *env, f *fitFlags, p *plan.Plan, start time.Time) error {
	var (
		res  *stream.RunResult
		outs = dataset.Outputs{Stdout: e.stdout}
	)
	outs.Add("--model", f.Model, func(w io.Writer) error { return res.Predictor.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	files, err := dataset.ExpandFiles(f.Data)
	if err != nil {
		return fmt.Errorf("--data %s: %w", f.Data, err)
	}
	if err := outs.CheckInputs(append(files, f.BasisRows)...); err != nil {
		return err
	}
	src, err := p.StreamSource(files)
	if err != nil {
		return err
	}
	opt, err := p.StreamOptions() // the loss the learner's descriptor declares: package stream reads only it
	if err != nil {
		return err
	}
	bar := newByteProgress(e.stderr, f.Quiet)
	ro := stream.RunOptions{Progress: bar.observe}
	res, err = stream.Run(context.Background(), opt, src, ro)
	if err != nil {
		bar.done()
		return err
	}
	res.Predictor.Features = res.FeatureNames
	res.Predictor.ZeroBased = src.SVM.Base == dataset.ZeroBased
	out := summary.StreamRun(opt, res, runtime.GOMAXPROCS(0), time.Since(start).Seconds())
	if out.CV != nil && !f.Quiet {
		edgeWarnings(e, res.OnEdge) // selection.GridEdge: the grid in any order
	}
	return finish(e, f, &outs, bar.p, out)
}

// byteProgress reports a pass's progress over the bytes of the input on
// stderr: after the first two seconds, at most five times a second,
// rewritten in place on a terminal.
type byteProgress struct {
	mu    sync.Mutex
	p     *progressLine
	start time.Time
	last  time.Time
	stage string
	t0    time.Time
}

func newByteProgress(w io.Writer, quiet bool) *byteProgress {
	return &byteProgress{p: newProgress(w, quiet), start: time.Now()}
}

// observe takes a pass's events (stage "pass N (kind)", bytes done of
// total) and shows them in MB with the pass's rate.
func (b *byteProgress) observe(e progress.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if e.Stage != b.stage {
		b.stage, b.t0 = e.Stage, now
	}
	if now.Sub(b.last) < 200*time.Millisecond && e.Done < e.Total {
		return
	}
	b.last = now
	rate := float64(e.Done) / math.Max(now.Sub(b.t0).Seconds(), 1e-9) / 1e6
	pct := 100.0
	if e.Total > 0 {
		pct = 100 * float64(e.Done) / float64(e.Total)
	}
	b.p.stepDetail(e.Stage, fmt.Sprintf("%.0f%% of %.1f MB, %.0f MB/s", pct, float64(e.Total)/1e6, rate), int(e.Done>>20), int(e.Total>>20))
}

func (b *byteProgress) done() { b.p.done() }
