package selection

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// OutputChoice is the λ chosen for one output by its own CV curve
// (Settings.LambdaPerOutput).
type OutputChoice struct {
	// Output indexes the label columns.
	Output int
	// Lambda is the output's λ, Value its CV value there (the measure on
	// that output's CV predictions alone), Index the point of the curve.
	Lambda float64
	Value  float64
	Index  int
}

// BestPerOutput returns, for each output, the best point of its own curve
// values[n][c] (the value of output c at curve[n], Result.PerOutput): the
// best value, ties to the larger λ — Select's rule, output by output.
// O(len(curve)·t).
func BestPerOutput(curve []Point, values [][]float64, meas measure.Measure) ([]OutputChoice, error) {
	if len(values) != len(curve) || len(curve) == 0 {
		return nil, fmt.Errorf("%w: %d per-output values for %d curve points", ErrScheme, len(values), len(curve))
	}
	t := len(values[0])
	out := make([]OutputChoice, t)
	for c := range out {
		best := -1
		for n, v := range values {
			if len(v) != t {
				return nil, fmt.Errorf("%w: λ = %g has %d per-output values, want %d", ErrScheme, curve[n].Lambda, len(v), t)
			}
			if best < 0 || meas.Better(v[c], values[best][c]) || (v[c] == values[best][c] && curve[n].Lambda > curve[best].Lambda) {
				best = n
			}
		}
		out[c] = OutputChoice{Output: c, Lambda: curve[best].Lambda, Value: values[best][c], Index: best}
	}
	return out, nil
}

// checkPerOutput refuses a λ per output where it has no meaning: it needs
// leave-one-out or folds cross-validated by the shortcuts (not a retraining
// per fold, not a learner of pairs), a measure of one output at a time, and
// several outputs is left to the caller's data (one output is its own
// best).
func checkPerOutput(p Problem, s Settings) error {
	switch {
	case s.Scheme.Kind != LOO && s.Scheme.Kind != Folds:
		return fmt.Errorf("%w: a λ per output is chosen by leave-one-out or folds, not %s", ErrScheme, s.Scheme.Name)
	case p.Retrain != nil:
		return fmt.Errorf("%w: a λ per output needs the exact hold-outs, not a retraining per fold", ErrScheme)
	case s.Measure.Multiclass:
		return fmt.Errorf("%w: %s scores the outputs together: no λ per output", ErrScheme, s.Measure.Name)
	case len(s.ColKernels) > 0 || len(s.ColLambdas) > 0:
		return fmt.Errorf("%w: a λ per output is for a learner on rows", ErrScheme)
	case s.Choose == Choose1SE:
		return fmt.Errorf("%w: a λ per output takes each output's best λ, not the one-standard-error rule", ErrScheme)
	case s.Permutations > 0:
		return fmt.Errorf("%w: a permutation test takes one output, a λ per output several", ErrScheme)
	}
	return nil
}

// perOutputPredictor returns the predictor whose output c is the learner's
// at lambdas[c]: the learner solved once per distinct λ (re-solves of one
// factorization, no refit), output c's column of the weights W or the
// expansion coefficients A and its intercept taken from the solution at
// its λ. The outputs of a squared-loss learner are separate problems
// sharing the kernel matrix, so each column equals the single-output model
// of that label at its λ. Lambda is left at the first solution's (Search
// sets it). Cost:
// one re-solve per distinct λ plus O(n·t) copies.
func perOutputPredictor(l learn.Learner, lambdas []float64) (*model.Predictor, error) {
	solved := map[float64]*model.Predictor{}
	var out *model.Predictor
	for c, lambda := range lambdas {
		p, ok := solved[lambda]
		if !ok {
			s, err := l.At(lambda)
			if err != nil {
				return nil, fmt.Errorf("output %d, λ = %g: %w", c, lambda, err)
			}
			p = s.Predictor()
			solved[lambda] = p
		}
		if out == nil {
			cp := *p
			if p.W != nil {
				cp.W = mat.DenseCopyOf(p.W)
			}
			if p.A != nil {
				cp.A = mat.DenseCopyOf(p.A)
			}
			cp.B = slices.Clone(p.B)
			out = &cp
		}
		switch {
		case (p.W == nil) != (out.W == nil) || (p.A == nil) != (out.A == nil) || (p.B == nil) != (out.B == nil) || !slices.Equal(p.WIndex, out.WIndex):
			return nil, fmt.Errorf("output %d: the models at λ = %g and λ = %g differ in form", c, lambda, lambdas[0])
		case p.W != nil:
			out.W.SetCol(c, mat.Col(nil, c, p.W))
		case p.A != nil:
			out.A.SetCol(c, mat.Col(nil, c, p.A))
		}
		if p.B != nil {
			out.B[c] = p.B[c]
		}
	}
	return out, nil
}

// perOutputPredictions returns the CV predictions of each output at its
// own λ (column c those at lambdas[c]) and each column's tie tolerance
// (nil when compared exactly): Select at each distinct λ. Cost: one
// cross-validation per distinct λ.
func perOutputPredictions(l learn.Learner, lambdas []float64, sc Scheme, meas measure.Measure, opt Options) (*mat.Dense, []float64, error) {
	opt.PerOutput = false
	at := map[float64]*Result{}
	var pred *mat.Dense
	var tol []float64
	for c, lambda := range lambdas {
		r, ok := at[lambda]
		if !ok {
			var err error
			if r, err = Select(l, []float64{lambda}, sc, meas, opt); err != nil {
				return nil, nil, fmt.Errorf("output %d: %w", c, err)
			}
			at[lambda] = r
		}
		if r.Predictions == nil {
			return nil, nil, nil
		}
		if pred == nil {
			pred = mat.NewDense(r.Predictions.RawMatrix().Rows, len(lambdas), nil)
		}
		pred.SetCol(c, mat.Col(nil, c, r.Predictions))
		if r.Tolerance != nil {
			if tol == nil {
				tol = make([]float64, len(lambdas))
			}
			tol[c] = r.Tolerance[c]
		}
	}
	return pred, tol, nil
}
