// Package greedy is greedy forward feature selection for linear regularized
// least squares (Greedy RLS; Pahikkala, Airola & Salakoski 2010): starting
// from the bias feature alone, each step adds the feature whose addition gives
// the best exact cross-validation value, and every candidate's value is
// computed from cached vectors instead of by retraining. A column of zeros
// (a constant feature, standardized) cannot change any model and is added
// only when no other candidate is left.
//
// # The model and the criterion
//
// For a feature set S, F_S is the m×s matrix of the selected columns of X
// plus the bias column √bias·1 (always in the model and regularized like the
// other features, as in RLScore), and RLS minimizes ‖Y − F_S W‖² + λ‖W‖² for
// all t outputs of Y at once. In the dual, with
//
//	A = λ(F_S F_Sᵀ + λI)⁻¹,  R = A·Y,
//
// the leave-one-out residual of row j is R_j / A_jj and the hold-out residuals
// of a set of rows H are E_H = (A_HH)⁻¹ R_H (the models retrained without the
// held-out rows; package rls). The criterion is any measure of package measure
// on the pooled CV predictions Y − E (mean over the outputs).
//
// # Adding a candidate
//
// Adding a column v to F_S is a rank-one change of the dual:
//
//	A' = A − u uᵀ/c,   u = A·v,   c = λ + vᵀA·v,   R' = R − u rᵀ/c,   r = uᵀY,
//
// so a candidate's leave-one-out residuals cost O(m·t) once u is known,
//
//	e'_j = (c·R_j − u_j·r) / (c·A_jj − u_j²),
//
// and its hold-out residuals, by Sherman–Morrison on (A_HH)⁻¹ with
// g_H = (A_HH)⁻¹u_H, cost O(|H|·t) per fold:
//
//	E'_H = E_H + g_H (u_HᵀE_H − rᵀ) / (c − u_Hᵀg_H).
//
// After feature b is chosen, w = u_b/√c_b and A ← A − w wᵀ: every candidate's
// image changes by u_i ← u_i − w·(wᵀv_i), O(m) per candidate (Pahikkala,
// Airola & Salakoski 2010, for leave-one-out; the hold-out form is derived
// the same way, with the fold images g_i updated by Sherman–Morrison on each
// block A_HH).
//
// # Two ways to keep the images
//
// Cache keeps U = A·X (and, for folds, the images g_i) as d×m matrices and
// updates them after each step: O(m·d·t) per step, O(k·m·d·t) for k features —
// linear in every size — at the price of one (two for folds) extra copy of the
// data per λ.
//
// Lean (in the spirit of the space-efficient form of Pahikkala, Okser, Airola,
// Salakoski & Aittokallio 2012: nothing of the size of the data besides the
// data) keeps only the
// directions W (s×m, A = I − WᵀW) and the products Z = XᵀWᵀ (d×s, row i
// z_i = W·v_i) and recomputes the images of each block of candidates by one
// matrix product, u_i = v_i − Wᵀz_i, in one pass over the data per step
// that also adds the newest direction's column to Z: O(m·d·s) per step
// through gemm, with O(m·(s + t + block)) + O(d·s) working memory
// and no m×m or d×d matrix. For folds it also keeps, per direction, the
// vector β = blockdiag((A_HH)⁻¹)·w, and replays the cached form's updates to
// get g_i, O(m·s) per candidate — never forming (A_HH)⁻¹, which would lose
// accuracy where A_HH is nearly singular (a fold whose training rows are
// fewer than the features, at small λ).
//
// Auto caches when the caches fit in DefaultCacheBytes. Either way every
// candidate's CV predictions are dense m-vectors, so a step costs at least
// O(m·d·t), sparse data or not; what sparse data saves is the memory for X
// itself (O(nnz); the lean form densifies one block of columns at a time).
//
// # Choosing k and λ
//
// Select runs one path per λ of the grid — all paths advance together, one
// pass over the data per step for all of them — and reports the best (λ, k)
// over the grid and k = 1…K. Values that differ by less than their forward
// error are ties, and a tie goes to fewer features, then the larger λ: each
// path carries a perturbed twin that measures the forward error of its CV
// predictions, ordinal measures score predictions within it as ties (the one
// tie rule of package selection), Step.Tolerance bounds the error of each
// value, and a step that only ties the step before it (Step.NoGain: a
// constant column, standardized to zeros) is never chosen — see ties.go. The
// criterion that chose the features is optimistic about the model it chose:
// Outer wraps the whole selection in an outer cross-validation for an
// honest estimate.
//
// Result.Curve, BestPoint and OnEdge give the selection in the types of
// package selection (one Point per (λ, k), the edges of the λ grid and of
// k), shared with every learner family. Descriptor registers greedy with
// package learn's registry; its Learner runs one whole selection per λ (see
// Learner), so front ends call Select for the (λ, k) path.
//
// Multi-output labels are selected jointly, the criterion being the mean over
// the outputs (Naula, Airola, Salakoski & Pahikkala 2014).
package greedy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
)

// Name names the learner in model files and in fit's JSON.
const Name learn.Name = "greedy"

// DefaultCacheBytes is the memory Auto allows the caches of all λ together
// before it switches to the lean form: 1 GiB.
const DefaultCacheBytes = 1 << 30

var (
	// ErrSelect is returned for a number of features to select that is not in
	// 1…d (d the number of features).
	ErrSelect = errors.New("greedy: invalid number of features to select")
	// ErrCriterion is returned when the measure is undefined on the labels,
	// or on the CV predictions of every candidate of a step.
	ErrCriterion = errors.New("greedy: criterion undefined")
	// ErrNonFinite is returned when a candidate's CV prediction is NaN or
	// ±Inf: features or labels too large for the arithmetic (standardize).
	ErrNonFinite = errors.New("greedy: non-finite cross-validation prediction")
)

// Memory chooses how the candidates' images A·v_i are kept.
type Memory int

const (
	// Auto caches when the caches take at most DefaultCacheBytes.
	Auto Memory = iota
	// Cache keeps A·X (and the hold-out images) as d×m matrices per λ:
	// O(m·d·t) per step.
	Cache
	// Lean recomputes the images per block of candidates from the s
	// directions: O(m·d·s) per step, O(m·(s+t) + d·s) working memory.
	Lean
)

// Options configure Select.
type Options struct {
	// Lambdas is the λ grid (at least one value, each finite and > 0); one
	// selection path is run per value.
	Lambdas []float64
	// Bias is the bias of the linear kernel: the feature √Bias·1 is in every
	// model, regularized like the others (RLScore's default is 1; 0 leaves it
	// out).
	Bias float64
	// K is the number of features to select, 1 ≤ K ≤ d.
	K int
	// Measure is the criterion (the zero Measure is mse). Multi-output: the
	// mean over the outputs.
	Measure measure.Measure
	// Folds are the hold-out sets (disjoint; rows in no fold are not scored);
	// nil is leave-one-out.
	Folds [][]int
	// Queries are per-row query ids for measures that need them.
	Queries []int
	// Outputs name the columns of Y (optional).
	Outputs []string
	// Standardize scales every feature to mean 0 and standard deviation 1
	// (sparse data: root mean square 1) before selection; the predictor
	// applies the same scaling. Dense data is copied to do so.
	Standardize bool
	// Memory chooses the cached or the lean form (default Auto).
	Memory Memory
	// Progress, when set, is told the stage and the features selected so far.
	Progress progress.Observer

	// trace, set by tests, receives every candidate's criterion value at
	// every step (NaN for selected features).
	trace func(path, step int, values []float64)
}

// Step is one step of a selection path.
type Step struct {
	// Feature is the column added at this step (0-based).
	Feature int
	// Value is the CV value of the model with the features added so far.
	Value float64
	// Indistinguishable says the CV predictions of this model are all within
	// their rounding error of each other (every output): ordinal measures
	// score them as ties.
	Indistinguishable bool
	// Tolerance bounds the forward error of Value (see ties.go): values
	// closer than the sum of their tolerances are ties.
	Tolerance float64
	// NoGain says Value ties the previous step's: the feature added nothing
	// the criterion can tell apart from rounding. The path goes on from it,
	// but the choice of (λ, k) never stops at this step.
	NoGain bool
}

// Path is the selection at one λ.
type Path struct {
	Lambda float64
	// Steps holds one step per selected feature, in order of selection.
	Steps []Step
}

// Selected returns the features of the first k steps (all for k < 0), in
// order of selection.
func (p Path) Selected(k int) []int {
	if k < 0 || k > len(p.Steps) {
		k = len(p.Steps)
	}
	out := make([]int, k)
	for n := range out {
		out[n] = p.Steps[n].Feature
	}
	return out
}

// Result is the outcome of Select.
type Result struct {
	// Paths holds one path per λ, in the order of Options.Lambdas.
	Paths []Path
	// Best indexes Paths; K is the number of features at the best point,
	// Lambda and Value its λ and CV value. The best point is the one with
	// the fewest features, then the largest λ, among those whose value ties
	// the best value (within the values' tolerances; steps with NoGain
	// excluded).
	Best   int
	K      int
	Lambda float64
	Value  float64
	// Selected are the features of the best point (the first K of its path).
	Selected []int
	// Predictions are the CV predictions of the best point (m×t, NaN for
	// rows in no fold).
	Predictions *mat.Dense
	// Cached says the images were cached (else the lean form ran).
	Cached bool
	// Learner is RLS trained on the selected columns (in ascending column
	// order) of the (standardized) data at Lambda, Solution its model.
	Learner  *rls.RLS
	Solution *rls.Solution
	// Predictor is the final model over the full width: weight 0 outside
	// the selected features, the scaler when the data were standardized.
	Predictor *model.Predictor
	// Scaler is the standardization (nil without).
	Scaler *model.Scaler
	// Train is the time the selection took.
	Train time.Duration
}

// Select runs greedy forward selection on X (m×d, *mat.Dense or
// *matrix.CSR) for the labels Y (m×t): one path of K features per λ, the best
// (λ, k) over the grid and k = 1…K, and the final model there. Cost: for each
// of the K steps, O(m·d·t) per λ cached or O(m·d·(s + t)) lean, plus one
// product with X per λ; see the package documentation.
func Select(x mat.Matrix, y *mat.Dense, opt Options) (*Result, error) {
	start := time.Now()
	var (
		e   *engine
		xs  mat.Matrix
		err error
	)
	// The workers parallelize; OpenBLAS threads of its own would only
	// contend with them for the same cores.
	linalg.SerialBLAS(func() {
		if e, xs, err = newEngine(x, y, &opt); err == nil {
			err = e.run()
		}
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Paths: make([]Path, len(e.paths)), Cached: e.cached, Scaler: e.scaler}
	for l, p := range e.paths {
		res.Paths[l] = Path{Lambda: p.lambda, Steps: p.steps}
	}
	best, k, ok := choice(res.Paths, opt.Measure)
	if !ok { // run fails first: every step has a value
		return nil, fmt.Errorf("%w: no step has a value", ErrCriterion)
	}
	res.Best, res.K = best, k
	res.Value = res.Paths[best].Steps[k-1].Value
	res.Predictions = e.cvPredictions(e.paths[best], k)
	res.Lambda = res.Paths[res.Best].Lambda
	res.Selected = res.Paths[res.Best].Selected(res.K)
	if err := res.fitFinal(e.cols, xs, y, opt); err != nil {
		return nil, err
	}
	res.Train = time.Since(start)
	return res, nil
}

// fitFinal trains RLS on the selected columns at the best λ and builds the
// full-width predictor. O(m·k²).
func (r *Result) fitFinal(cols *columns, xs mat.Matrix, y *mat.Dense, opt Options) error {
	_, d := xs.Dims()
	idx := slices.Sorted(slices.Values(r.Selected))
	l, err := rls.Fit(cols.sub(idx), y, learn.Options{Kernel: kernel.Linear{Bias: opt.Bias}, Outputs: opt.Outputs})
	if err != nil {
		return fmt.Errorf("greedy: final model: %w", err)
	}
	sol, err := l.Solve(r.Lambda)
	if err != nil {
		return fmt.Errorf("greedy: final model: %w", err)
	}
	p := sol.Predictor()
	p.Learner, p.Width, p.WIndex, p.Scaler = string(Name), d, idx, r.Scaler
	r.Learner, r.Solution, r.Predictor = l, sol, p
	return nil
}

// check validates the options against X (m×d) and Y and fills defaults.
func (opt *Options) check(m, d int, y *mat.Dense) error {
	if m < 2 {
		return fmt.Errorf("greedy: %w: %d training rows, need at least 2", learn.ErrShape, m)
	}
	outs, err := learn.CheckLabels(y, m, opt.Outputs)
	if err != nil {
		return fmt.Errorf("greedy: %w", err)
	}
	opt.Outputs = outs
	if opt.K < 1 || opt.K > d {
		return fmt.Errorf("%w: %d of %d features (want 1 … %d)", ErrSelect, opt.K, d, d)
	}
	if len(opt.Lambdas) == 0 {
		return fmt.Errorf("greedy: %w: no λ values", learn.ErrLambda)
	}
	for _, l := range opt.Lambdas {
		if err := learn.CheckLambda(l); err != nil {
			return fmt.Errorf("greedy: %w", err)
		}
	}
	if !(opt.Bias >= 0) || math.IsInf(opt.Bias, 0) {
		return fmt.Errorf("greedy: bias %v: want a finite number ≥ 0", opt.Bias)
	}
	if opt.Measure.Name == "" {
		opt.Measure, _ = measure.ByName("mse")
	}
	if opt.Folds != nil {
		if err := cv.Check(opt.Folds, m); err != nil {
			return fmt.Errorf("greedy: %w", err)
		}
	}
	if opt.Measure.NeedsQueries && len(opt.Queries) != m {
		return fmt.Errorf("greedy: %w: measure %s needs a query id per row (%d rows, %d ids)", measure.ErrNoQueries, opt.Measure.Name, m, len(opt.Queries))
	}
	return nil
}

// Curve returns the selection as CV points of package selection: one per
// (λ, k) step, in path order (the paths in the order of Options.Lambdas,
// each from k = 1), with Lambda, Features = k, Value and Indistinguishable.
func (r *Result) Curve() []selection.Point {
	var out []selection.Point
	for _, p := range r.Paths {
		for n, s := range p.Steps {
			out = append(out, selection.Point{Lambda: p.Lambda, Features: n + 1, Value: s.Value, Indistinguishable: s.Indistinguishable})
		}
	}
	return out
}

// BestPoint returns the chosen point (Lambda, K, Value) as a point of
// package selection.
func (r *Result) BestPoint() selection.Point {
	s := r.Paths[r.Best].Steps[r.K-1]
	return selection.Point{Lambda: r.Lambda, Features: r.K, Value: r.Value, Indistinguishable: s.Indistinguishable}
}

// OnEdge returns the edges the chosen point lies on, by the one edge rule
// (selection.GridEdge): λ at the low or high end of the grid searched (the
// λ grid given to Select; one value has no edge), and Edge{"features",
// "high"} when the chosen k is the last of more than one — the criterion
// may still improve beyond it (select more features).
func (r *Result) OnEdge(grid []float64) []selection.Edge {
	var out []selection.Edge
	if e, ok := selection.GridEdge("lambda", grid, r.Lambda); ok {
		out = append(out, e)
	}
	last := len(r.Paths[r.Best].Steps)
	if e, ok := selection.GridEdge("features", []float64{1, float64(last)}, float64(r.K)); ok && e.Side == "high" {
		out = append(out, e)
	}
	return out
}
