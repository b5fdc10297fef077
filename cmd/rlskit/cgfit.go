package main

import (
	"fmt"
	"io"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
)

// runCG trains a linear model by conjugate gradients (no factorization, no CV).
// The --model output is checked before the work and committed after it
// (dataset.Outputs): an existing model file is only replaced by a complete one.
func runCG(e *env, f *fitFlags, p *plan.Plan, d *dataset.Data, start, loaded time.Time) error {
	var (
		outs = dataset.Outputs{Stdout: e.stdout}
		pred *model.Predictor
	)
	outs.Add("--model", f.Model, func(w io.Writer) error { return pred.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.Data, f.Folds, f.BasisRows, f.Preferences); err != nil {
		return err
	}
	if err := cgWidthFits(d.X); err != nil {
		return fmt.Errorf("--solver cg: %s: %w", f.Data, err)
	}
	x, scaler, err := learn.Options{Standardize: f.Standardize}.Prepare(d.X)
	if err != nil {
		return err
	}
	// Values whose squares overflow are named here, not met as NaN weights.
	if err := kernel.CheckFinite(kernel.Spec{Name: "linear", Bias: f.Bias}, x); err != nil {
		return fmt.Errorf("%s: %w", f.Data, err)
	}
	_, width := x.Dims()
	lambda := p.Lambdas[0]
	loss, err := cgLoss(p.Learner.Loss)
	if err != nil {
		return err
	}
	t0 := time.Now()
	res, err := cg.Solve(cg.Problem{X: x, Y: d.Y, Loss: loss, Queries: d.Queries, Bias: f.Bias, Outputs: d.LabelNames, Scaler: scaler},
		cg.Options{Lambda: lambda, Tol: f.Tol, MaxIter: f.MaxIter})
	if err != nil {
		return fmt.Errorf("--solver cg: %w", err)
	}
	train := time.Since(t0)
	pred = res.Predictor()
	pred.Features, pred.ZeroBased = d.FeatureNames, d.ZeroBased
	m, _ := x.Dims()
	out := fitOutput{Learner: f.Learner, Kernel: kernel.Spec{Name: "linear", Bias: f.Bias}, Form: "cg", Lambda: lambda,
		NTrain: m, NFeatures: width, Outputs: d.LabelNames, Backend: linalg.Backend(),
		CG: &cgOutput{Iterations: res.Iterations, Converged: res.Converged, Residual: res.Residual}}
	if d.Queries != nil {
		out.Queries = queryStats(d)
	}
	out.Timing = timing{Load: loaded.Sub(start).Seconds(), Train: train.Seconds(), Total: time.Since(start).Seconds()}
	return finish(e, f, &outs, nil, out)
}

// cgMaxSparseWidth is the width up to which --solver cg takes sparse data
// whatever its number of stored entries; beyond it the width may be at most
// cgWidthPerEntry times the entries.
const (
	cgMaxSparseWidth = 1 << 24
	cgWidthPerEntry  = 16
)

// cgWidthFits refuses sparse data whose width is far beyond what it stores:
// conjugate gradients keep several vectors of the data's width (8 bytes per
// feature each), so a few rows with an svmlight index of 5·10⁹ would need tens
// of gigabytes. The width must be at most max(2²⁴, 16·nnz).
func cgWidthFits(x mat.Matrix) error {
	c, ok := x.(*matrix.CSR)
	if !ok {
		return nil // dense data holds its width already
	}
	if limit := max(cgMaxSparseWidth, cgWidthPerEntry*c.NNZ()); c.C > limit {
		return fmt.Errorf("width %d (the largest feature index) is far beyond the %d values the data stores: "+
			"the solver keeps vectors of the full width, so it takes widths up to max(2^24, %d·values) = %d; "+
			"renumber the features densely, or use --solver direct", c.C, c.NNZ(), cgWidthPerEntry, limit)
	}
	return nil
}
