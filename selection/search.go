package selection

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// Method trains a learner on the rows X with one kernel: typically a closure
// over the labels (and queries, graph, basis) around rls.Fit or a rank.Fit*.
// X is already standardized when the Problem asks for it.
type Method func(x mat.Matrix, k kernel.Kernel) (learn.Learner, error)

// Problem is what Search trains on.
type Problem struct {
	// X holds the m training rows (*mat.Dense or *matrix.CSR).
	X mat.Matrix
	// Method trains the learner for one kernel setting.
	Method Method
	// Standardize scales the features once (model.FitScaler) before training;
	// the returned predictor carries the scaler.
	Standardize bool
	// Retrain, when set, cross-validates by training a new model per fold
	// (Scheme of kind Folds) instead of the learner's shortcuts — for designs
	// whose training depends on the fold, e.g. RandomBasisPerFold.
	Retrain func(x mat.Matrix, k kernel.Kernel) Retrainer
}

// Settings say what Search searches and how it scores.
type Settings struct {
	// Kernels are the kernel settings searched (at least one).
	Kernels []kernel.Spec
	// Lambdas is the λ grid (at least one value; one with Scheme kind None).
	Lambdas []float64
	Scheme  Scheme
	Measure measure.Measure
	// Options pass query ids and, for learners without labels, the labels to
	// score against; Options.Progress is ignored (see Progress).
	Options Options
	// Permutations > 0 runs a permutation test at the best kernel setting
	// with that many label permutations, seeded by Seed.
	Permutations int
	Seed         uint64
	// Progress, when set, is told the stage and how far it is.
	Progress func(stage string, done, total int)
}

// Curve is the CV curve of one kernel setting.
type Curve struct {
	Kernel kernel.Spec
	*Result
}

// SearchResult is the outcome of Search.
type SearchResult struct {
	// Curves holds one CV curve per kernel setting, in the order searched.
	Curves []Curve
	// Best indexes Curves; Kernel and Lambda are the chosen point, Value its CV value.
	Best   int
	Kernel kernel.Spec
	Lambda float64
	Value  float64
	// Learner is the learner trained with the best kernel setting, Solution
	// its model at the best λ.
	Learner  learn.Learner
	Solution learn.Solution
	// Predictor is the model at the best point, carrying the scaler.
	Predictor *model.Predictor
	// Scaler is the standardization applied to X (nil without).
	Scaler *model.Scaler
	// OnEdge lists the searched parameters whose chosen value is the smallest
	// or largest of its grid: the optimum may lie beyond it, and the grid
	// should be widened that way.
	OnEdge []Edge
	// Permutation is the permutation test (nil unless asked).
	Permutation *PermutationResult
	// Train and CV are the time spent training and cross-validating.
	Train, CV time.Duration
}

// Edge says that a parameter's chosen value lies on the edge of its grid.
type Edge struct {
	// Parameter is "lambda", "gamma", "degree" or "coef0".
	Parameter string `json:"parameter"`
	// Side is "low" (the smallest value of the grid) or "high" (the largest).
	Side string `json:"side"`
}

// GridEdge reports whether v is the smallest ("low") or largest ("high")
// value of a grid of at least two distinct values, in any order: the
// optimum may lie beyond it. The one edge rule of every learner family.
func GridEdge(parameter string, grid []float64, v float64) (Edge, bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range grid {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	switch {
	case lo == hi:
	case v == lo:
		return Edge{parameter, "low"}, true
	case v == hi:
		return Edge{parameter, "high"}, true
	}
	return Edge{}, false
}

// onEdge returns the edges the chosen point lies on, for every parameter
// searched over at least two values.
func onEdge(lambdas []float64, specs []kernel.Spec, best kernel.Spec, lambda float64) []Edge {
	var out []Edge
	check := func(name string, values []float64, v float64) {
		if e, ok := GridEdge(name, values, v); ok {
			out = append(out, e)
		}
	}
	check("lambda", lambdas, lambda)
	var gammas, degrees, coef0s []float64
	for _, s := range specs {
		gammas, degrees, coef0s = append(gammas, s.Gamma), append(degrees, float64(s.Degree)), append(coef0s, s.Coef0)
	}
	check("gamma", gammas, best.Gamma)
	check("degree", degrees, float64(best.Degree))
	check("coef0", coef0s, best.Coef0)
	return out
}

// Search checks that every kernel setting can be evaluated on the (scaled)
// rows without overflow (kernel.CheckFinite), trains the learner once per
// kernel setting (one factorization each) and selects λ on each by Select (or SelectRetrain when the problem retrains
// per fold); the best setting is the one whose best CV value is better than
// every earlier one's (ties: the first). Then it solves the best learner at the
// best λ, builds its predictor (with the scaler) and, when asked, runs the
// permutation test on the same factorization. Cost: one training per kernel
// setting plus Select's per λ.
func Search(p Problem, s Settings) (*SearchResult, error) {
	if p.Method == nil || p.X == nil {
		return nil, fmt.Errorf("%w: Search needs data and a method", ErrScheme)
	}
	if len(s.Kernels) == 0 {
		return nil, fmt.Errorf("%w: no kernel settings", ErrGrid)
	}
	if s.Scheme.Kind == None && len(s.Kernels) > 1 {
		return nil, fmt.Errorf("%w: no cross-validation to choose among %d kernel settings", ErrScheme, len(s.Kernels))
	}
	progress := s.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	x := p.X
	out := &SearchResult{Best: -1}
	if p.Standardize {
		out.Scaler = model.FitScaler(x)
		var err error
		if x, err = out.Scaler.Transform(x); err != nil {
			return nil, err
		}
	}
	opt := s.Options
	steps := len(s.Kernels) * len(s.Lambdas)
	for n, spec := range s.Kernels {
		k, err := kernel.New(spec)
		if err != nil {
			return nil, err
		}
		// a value whose square overflows is named here, not met later as NaN
		if err := kernel.CheckFinite(spec, x); err != nil {
			return nil, fmt.Errorf("training data with %s: %w", spec, err)
		}
		t0 := time.Now()
		progress("training "+spec.String(), n*len(s.Lambdas), steps)
		l, err := p.Method(x, k)
		if err != nil {
			return nil, fmt.Errorf("training with %s: %w", spec, err)
		}
		t1 := time.Now()
		out.Train += t1.Sub(t0)
		var res *Result
		if p.Retrain != nil {
			y, err := labels(l, opt)
			if err != nil {
				return nil, err
			}
			opt.Progress = func(done, total int) { progress("retraining fold", done, total) }
			res, err = SelectRetrain(p.Retrain(x, k), y, s.Lambdas, s.Scheme.Folds, s.Scheme.Name, s.Measure, opt)
			if err != nil {
				return nil, fmt.Errorf("cross-validation with %s: %w", spec, err)
			}
		} else {
			opt.Progress = func(done, total int) { progress("cross-validating λ", n*len(s.Lambdas)+done, steps) }
			if res, err = Select(l, s.Lambdas, s.Scheme, s.Measure, opt); err != nil {
				return nil, fmt.Errorf("cross-validation with %s: %w", spec, err)
			}
		}
		out.CV += time.Since(t1)
		out.Curves = append(out.Curves, Curve{Kernel: spec, Result: res})
		if out.Best < 0 || s.Measure.Better(res.Best.Value, out.Value) {
			out.Best, out.Kernel, out.Lambda, out.Value, out.Learner = n, spec, res.Best.Lambda, res.Best.Value, l
		}
	}
	if s.Permutations > 0 {
		opt.Progress = func(done, total int) { progress("permutation test, λ", done, total) }
		pr, err := PermutationTest(out.Learner, s.Lambdas, s.Scheme, s.Measure, s.Permutations, s.Seed, opt)
		if err != nil {
			return nil, fmt.Errorf("permutation test: %w", err)
		}
		out.Permutation = pr
	}
	if s.Scheme.Kind != None {
		out.OnEdge = onEdge(s.Lambdas, s.Kernels, out.Kernel, out.Lambda)
	}
	sol, err := out.Learner.At(out.Lambda)
	if err != nil {
		return nil, err
	}
	out.Solution, out.Predictor = sol, sol.Predictor()
	if out.Scaler != nil {
		out.Predictor.Scaler = out.Scaler
	}
	return out, nil
}
