package main

import (
	"fmt"
	"io"
	"time"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// runCG trains a linear model by conjugate gradients (no factorization, no
// CV): the registered learner's method for Form learn.Iterative, through the
// one search at one λ. The --model output is checked before the work and
// committed after it (dataset.Outputs): an existing model file is only
// replaced by a complete one.
func runCG(e *env, f *fitFlags, p *plan.Plan, d *dataset.Data, in *learn.Input, start, loaded time.Time) error {
	var (
		outs = dataset.Outputs{Stdout: e.stdout}
		pred *model.Predictor
	)
	outs.Add("--model", f.Model, func(w io.Writer) error { return pred.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil {
		return err
	}
	in.Form, in.Tol, in.MaxIter = learn.Iterative, f.Tol, f.MaxIter
	spec := kernel.Spec{Name: "linear", Bias: f.Bias}
	res, err := selection.Search(selection.Problem{Learner: p.Learner, Input: in, Standardize: f.Standardize},
		selection.Settings{Kernels: []kernel.Spec{spec}, Lambdas: p.Lambdas[:1], Measure: p.Measure,
			Scheme: selection.Scheme{Kind: selection.None, Name: "none"}})
	if err != nil {
		return fmt.Errorf("--solver cg: %w", err)
	}
	sol, ok := res.Solution.(*cg.Result)
	if !ok {
		return fmt.Errorf("--solver cg: --learner %s did not train by conjugate gradients", p.Learner.Name)
	}
	pred = res.Predictor
	pred.Features, pred.FeatureColumns, pred.ZeroBased = d.FeatureNames, arrayColumns(d), d.ZeroBased
	m, width := d.X.Dims()
	out := summary.Fit{Learner: f.Learner, Kernel: spec, Form: "cg", Lambda: res.Lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, Backend: linalg.Backend(),
		CG: &summary.CG{Iterations: sol.Iterations, Converged: sol.Converged, Residual: sol.Residual}}
	if d.Queries != nil {
		out.Queries = summary.QueryStats(d)
	}
	out.Timing = summary.Timing{Load: loaded.Sub(start).Seconds(), Train: res.Train.Seconds(), Total: time.Since(start).Seconds()}
	return finish(e, f, &outs, nil, out)
}
