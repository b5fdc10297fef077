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
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/stream"
)

// fit --stream: the data are read in passes and never held (package stream
// does every computation; this file turns flags into stream.Options, reports
// progress and writes the results).

// streamOutput is fit's JSON with what the passes did.
type streamOutput struct {
	fitOutput
	Stream streamInfo `json:"stream"`
}

type streamInfo struct {
	Files  []stream.FileStats `json:"files"`
	Bytes  int64              `json:"bytes"`
	Passes []passInfo         `json:"passes"`
	// RowsPerSecond is the rows of one pass per second of pass time, over all passes.
	RowsPerSecond float64 `json:"rows_per_s"`
	Workers       int     `json:"workers"`
	BasisRows     []int   `json:"basis_rows,omitempty"`
}

type passInfo struct {
	Kind    string  `json:"kind"`
	Grouped bool    `json:"grouped,omitempty"`
	Seconds float64 `json:"seconds"`
}

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
	var passes []passInfo
	var passTime float64
	for n, ps := range res.Passes {
		passes = append(passes, passInfo{Kind: ps.Kind.String(), Grouped: ps.Grouped, Seconds: res.PassSeconds[n]})
		passTime += res.PassSeconds[n]
	}
	form := "linear"
	if res.Basis != nil {
		form = "sparse"
	}
	out := streamOutput{fitOutput: fitOutput{Learner: string(p.Learner.Name), Kernel: p.Kernels[0], Form: form, Lambda: res.Best.Lambda,
		NTrain: res.Rows, NFeatures: res.Width, Outputs: res.Predictor.Outputs, NBasis: len(res.Basis), Backend: linalg.Backend()}}
	if res.Groups > 0 {
		out.Queries = &queryInfo{Count: res.Groups, WithoutPairs: res.SingleRowGroups}
	}
	if p.CVSpec != "none" {
		var curve []curvePoint
		for _, pt := range res.Curve {
			curve = append(curve, point(pt, p.Kernels[0], false))
		}
		out.CV = &cvOutput{Strategy: p.CVSpec, Measure: p.Measure.Name, Curve: curve, Best: point(res.Best, p.Kernels[0], false)}
		out.CV.Best.OnEdge = res.OnEdge
		if res.Basis != nil {
			out.CV.BasisHoldOut = "keep"
		}
	}
	total := time.Since(start).Seconds()
	out.Timing = timing{Load: passTime, Train: total - passTime, Total: total}
	out.Stream = streamInfo{Files: res.Files, Bytes: res.Bytes, Passes: passes, Workers: runtime.GOMAXPROCS(0), BasisRows: res.Basis}
	if passTime > 0 {
		out.Stream.RowsPerSecond = float64(res.Rows) * float64(len(passes)) / passTime
	}
	if out.CV != nil && !f.Quiet {
		for _, edge := range res.OnEdge { // selection.GridEdge: the grid in any order
			fmt.Fprintf(e.stderr, "rlskit: warning: the chosen %s is the %s end of its grid; the best value may lie beyond it: widen the grid\n",
				edge.Parameter, map[string]string{"low": "lower", "high": "upper"}[edge.Side])
		}
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
