package main

import (
	"fmt"
	"io"
	"time"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/report"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// runGreedy is fit --learner greedy: read → greedy.Select (and greedy.Outer)
// → write. The selection, its criterion and the outer loop are the library's.
func runGreedy(e *env, f *fitFlags, p *plan.Plan, start time.Time) error {
	var (
		res  *greedy.Result
		rd   report.Data
		outs = dataset.Outputs{Stdout: e.stdout}
	)
	outs.Add("--model", f.Model, func(w io.Writer) error { return res.Predictor.Save(w) })
	outs.Add("--cv-predictions", f.CVPredictions, func(w io.Writer) error { return writeRowPredictions(w, res.Predictions, res.Predictor.Outputs) })
	outs.Add("--report", f.Report, func(w io.Writer) error { return report.Write(w, rd) })
	var curves *curveTable
	outs.Add("--curves", f.Curves, func(w io.Writer) error { return curves.write(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil {
		return err
	}
	d, err := readData(e, f.Data, f.Format, f.Label, f.Qid, 0, f.In)
	if err != nil {
		return err
	}
	if _, _, err := trainingInput(f, p, d); err != nil {
		return err
	}
	m, width := d.X.Dims()
	if f.Select > width {
		return fmt.Errorf("--select %d: %w: %s has %d features", f.Select, greedy.ErrSelect, f.Data, width)
	}
	scheme, err := fitScheme(f, p, d, nil)
	if err != nil {
		return err
	}
	loaded := time.Now()
	prog := newProgress(e.stderr, f.Quiet)
	defer prog.done()
	opt := greedy.Options{Lambdas: p.Lambdas, Bias: f.Bias, K: f.Select, Measure: p.Measure, Folds: scheme.Folds,
		Queries: d.Queries, Outputs: d.LabelNames, Standardize: f.Standardize, Progress: prog.observe}
	res, err = greedy.Select(d.X, d.Y, opt)
	if err != nil {
		return fmt.Errorf("--learner greedy: %w", err)
	}
	res.Predictor.Features, res.Predictor.FeatureColumns, res.Predictor.ZeroBased = d.FeatureNames, arrayColumns(d), d.ZeroBased
	t1 := time.Now()
	var outer *greedy.OuterResult
	if f.OuterFolds > 0 {
		folds, err := cv.KFold(m, f.OuterFolds, f.Seed)
		if err != nil {
			return fmt.Errorf("--outer-folds %d: %w", f.OuterFolds, err)
		}
		if outer, err = greedy.Outer(d.X, d.Y, opt, folds); err != nil {
			return fmt.Errorf("--outer-folds %d: %w", f.OuterFolds, err)
		}
	}

	out := summary.Greedy(string(p.Learner.Name), d, res, opt, scheme.Name, outer)
	if out.Selection != nil {
		curves = greedyCurveTable(out.Selection)
	}
	greedyWarnings(e, res, p) // with --quiet too
	out.Timing = summary.Timing{Load: loaded.Sub(start).Seconds(), Train: t1.Sub(loaded).Seconds(), CV: time.Since(t1).Seconds(),
		Total: time.Since(start).Seconds()}
	if f.Report != "" {
		rd = report.Greedy(out, res, d, p.Measure, reportOptions(f, "rlskit fit --learner greedy: ", nil))
	}
	return finish(e, f, &outs, prog, out)
}

// greedyWarnings: a choice at the end of what was searched may lie beyond it.
func greedyWarnings(e *env, res *greedy.Result, p *plan.Plan) {
	if e2, ok := selection.GridEdge("lambda", p.Lambdas, res.Lambda); ok { // the one edge rule
		edgeWarnings(e, []selection.Edge{e2})
	}
	if res.K == len(res.Paths[res.Best].Steps) && res.K > 1 {
		fmt.Fprintf(e.stderr, "rlskit: note: the criterion was still improving at the last of the %d features selected; more might be better (raise --select)\n", res.K)
	}
	if res.Paths[res.Best].Steps[res.K-1].Indistinguishable {
		fmt.Fprintf(e.stderr, "rlskit: warning: at the chosen point the CV predictions are numerically indistinguishable; %s counts them as ties\n", p.Measure.Name)
	}
}
