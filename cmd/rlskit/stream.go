package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/plan"
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
	var curves *curveTable
	outs.Add("--curves", f.Curves, func(w io.Writer) error { return curves.write(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	files, err := dataset.ExpandFiles(f.Data)
	if err != nil {
		return fmt.Errorf("--data %s: %w", f.Data, err)
	}
	if err := outs.CheckInputs(append(files, f.inputs...)...); err != nil {
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
	bar := newProgress(e.stderr, f.Quiet)
	ro := stream.RunOptions{Progress: bar.Bytes()}
	ctx, stop := stream.NotifyContext(context.Background()) // SIGINT/SIGTERM: the spilled store is removed first
	res, err = stream.Run(ctx, opt, src, ro)
	stop()
	if err != nil {
		bar.done()
		return err
	}
	res.Predictor.Features = res.FeatureNames
	res.Predictor.ZeroBased = src.SVM.Base == dataset.ZeroBased
	out := summary.StreamRun(opt, res, runtime.GOMAXPROCS(0), time.Since(start).Seconds())
	if out.CV != nil {
		curves = fitCurveTable(out.CV, out.Kernel)
	}
	if out.CV != nil { // warnings print with --quiet too
		edgeWarnings(e, res.OnEdge) // selection.GridEdge: the grid in any order
	}
	return finish(e, f, &outs, bar, out)
}
