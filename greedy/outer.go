package greedy

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
)

// OuterFold is one fold of Outer: what the selection on the other rows chose.
type OuterFold struct {
	// Test are the held-out rows.
	Test []int
	// Lambda and K are the chosen point, Selected its features, Inner its
	// (optimistic) inner CV value.
	Lambda   float64
	K        int
	Selected []int
	Inner    float64
}

// OuterResult is the outer cross-validation of the whole selection.
type OuterResult struct {
	// Value is the measure on the pooled outer predictions (mean over outputs).
	Value float64
	// Predictions are the outer predictions (m×t, NaN for rows in no fold).
	Predictions *mat.Dense
	// Folds describes each outer fold.
	Folds []OuterFold
}

// Outer estimates how well the whole procedure — standardization, the choice
// of λ, k and the features by the inner criterion, the final model — predicts
// new data: for each outer fold it runs Select on the other rows alone and
// predicts the held-out rows with the model chosen there; Value is the measure
// on the pooled predictions. The inner criterion is optimistic about the
// model it chose (it chose it); this estimate is not. Options.Folds, when set,
// index the full data: each inner selection uses them restricted to its
// training rows (folds left empty are dropped). Cost: one Select per outer
// fold.
func Outer(x mat.Matrix, y *mat.Dense, opt Options, folds [][]int) (*OuterResult, error) {
	if x == nil || y == nil {
		return nil, fmt.Errorf("greedy: outer: no data")
	}
	m, d := x.Dims()
	if err := opt.check(m, d, y); err != nil {
		return nil, err
	}
	if err := cv.Check(folds, m); err != nil {
		return nil, fmt.Errorf("greedy: outer folds: %w", err)
	}
	_, t := y.Dims()
	var covered []int
	for _, f := range folds {
		covered = append(covered, f...)
	}
	ys := kernel.Rows(y, covered).(*mat.Dense)
	var qs []int
	if opt.Measure.NeedsQueries {
		for _, i := range covered {
			qs = append(qs, opt.Queries[i])
		}
	}
	if _, err := opt.Measure.Score(ys, ys, qs); err != nil {
		return nil, fmt.Errorf("%w: measure %s on the labels of the outer folds: %w", ErrCriterion, opt.Measure.Name, err)
	}
	out := &OuterResult{Predictions: mat.NewDense(m, t, nil)}
	for i := 0; i < m; i++ {
		for c := 0; c < t; c++ {
			out.Predictions.Set(i, c, math.NaN())
		}
	}
	for n, test := range folds {
		train := cv.Complement(test, m)
		inner := opt
		inner.Folds = restrict(opt.Folds, train, m)
		if opt.Queries != nil {
			inner.Queries = make([]int, len(train))
			for k, i := range train {
				inner.Queries[k] = opt.Queries[i]
			}
		}
		inner.Progress = opt.Progress.Prefixed(fmt.Sprintf("outer fold %d/%d: ", n+1, len(folds)))
		res, err := Select(kernel.Rows(x, train), kernel.Rows(y, train).(*mat.Dense), inner)
		if err != nil {
			return nil, fmt.Errorf("greedy: outer fold %d: %w", n, err)
		}
		p, err := res.Predictor.Predict(kernel.Rows(x, test))
		if err != nil {
			return nil, fmt.Errorf("greedy: outer fold %d: %w", n, err)
		}
		for k, i := range test {
			out.Predictions.SetRow(i, p.RawRowView(k))
		}
		out.Folds = append(out.Folds, OuterFold{Test: test, Lambda: res.Lambda, K: res.K, Selected: res.Selected, Inner: res.Value})
	}
	ps := kernel.Rows(out.Predictions, covered).(*mat.Dense)
	v, err := opt.Measure.Score(ys, ps, qs)
	if err != nil {
		return nil, fmt.Errorf("greedy: outer estimate: %w", err)
	}
	out.Value = v
	return out, nil
}

// restrict maps folds of the full data to the rows train (renumbered by
// their position in train), dropping the rows outside train and the folds
// left empty; nil stays nil (leave-one-out).
func restrict(folds [][]int, train []int, m int) [][]int {
	if folds == nil {
		return nil
	}
	at := make([]int, m)
	for i := range at {
		at[i] = -1
	}
	for k, i := range train {
		at[i] = k
	}
	out := [][]int{}
	for _, f := range folds {
		var g []int
		for _, i := range f {
			if at[i] >= 0 {
				g = append(g, at[i])
			}
		}
		if len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}
