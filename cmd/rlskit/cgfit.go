package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// runCG trains a linear model by conjugate gradients (no factorization, no CV).
func runCG(e *env, f *fitFlags, p *fitPlan, d *dataset.Data, start, loaded time.Time) error {
	x, scaler, err := learn.Options{Standardize: f.standardize}.Prepare(d.X)
	if err != nil {
		return err
	}
	_, width := x.Dims()
	lambda := p.grid[0]
	t0 := time.Now()
	res, err := cg.Solve(cg.Problem{X: x, Y: d.Y, Loss: *p.learner.cg, Queries: d.Queries, Bias: f.bias, Outputs: d.LabelNames, Scaler: scaler},
		cg.Options{Lambda: lambda, Tol: f.tol, MaxIter: f.maxIter})
	if err != nil {
		return fmt.Errorf("--solver cg: %w", err)
	}
	train := time.Since(t0)
	pred := res.Predictor()
	pred.Features = d.FeatureNames
	if f.modelOut != "" {
		if err := dataset.WriteFileAtomic(f.modelOut, pred.Save); err != nil {
			return fmt.Errorf("--model %s: %w", f.modelOut, err)
		}
	}
	m, _ := x.Dims()
	out := fitOutput{Learner: f.learner, Kernel: kernel.Spec{Name: "linear", Bias: f.bias}, Form: "cg", Lambda: lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, Backend: linalg.Backend,
		CG: &cgOutput{Iterations: res.Iterations, Converged: res.Converged, Residual: res.Residual}}
	if d.Queries != nil {
		out.Queries = queryStats(d)
	}
	out.Timing = timing{Load: loaded.Sub(start).Seconds(), Train: train.Seconds(), Total: time.Since(start).Seconds()}
	return json.NewEncoder(e.stdout).Encode(out)
}
