// Package selection is the one search of rlskit: it chooses the
// regularization parameter λ (and a second λ), kernel parameters and, through
// them, the model, by exact cross-validation, for the learners of package
// learn's registry — on rows and on pairs of objects — with one result type,
// one measure type, one tie rule and one edge rule (greedy selection, whose
// criterion is its own search along the number of features, reports its
// path in the same Points and scores it with the same tie rule).
//
// Select evaluates one trained learner along a λ grid: at every λ the learner
// is re-solved (no refactorization) and cross-validated with its shortcuts —
// leave-one-out, hold-out folds or leave-pair-out — and the measure is computed
// on the pooled CV predictions. The capabilities the scheme needs are checked
// before the λ loop starts.
//
// Search adds the kernel-parameter grid: it trains once per kernel setting
// (one factorization each; for a learner of pairs every row setting with
// every column setting), runs Select — or, for a learner of pairs, its
// object design (settings A–D, vertices) along both λ grids — on each, picks
// the best setting and λ, and returns its predictor (with the scaler when
// the data were standardized) and optionally a permutation test in which
// every permutation is searched over the same grid. NewScheme builds a
// scheme from a spec such as "loo", "kfold:10", "lgo", "lpo", "rows:5" or
// "both"; Check checks such a plan against a learner's declared
// capabilities before any data is read; RandomBasisPerFold retrains sparse
// models per fold when the basis itself must depend on the fold.
//
// # Searching γ and λ by leave-one-out, then predicting
//
//	d, _ := learn.Lookup("rls") // import _ "github.com/rlskit/rlskit/learners"
//	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.01}, {Name: "gaussian", Gamma: 0.1}}
//	mse, _ := measure.ByName("mse")
//	if err := selection.Check(d, selection.Plan{Scheme: "loo", Measure: mse, Kernel: "gaussian"}); err != nil {
//		return err // the learner cannot run this plan: said before any work
//	}
//	res, err := selection.Search(selection.Problem{Learner: d, Input: &learn.Input{X: x, Y: y}, Standardize: true},
//		selection.Settings{Kernels: specs, Lambdas: selection.DefaultGrid(), Measure: mse,
//			Scheme: selection.Scheme{Kind: selection.LOO, Name: "loo"}})
//	// res.Kernel, res.Lambda, res.Value: the chosen point; res.Curves: every CV curve;
//	// res.OnEdge: parameters chosen at an end of their grid (widen it)
//	f, err := res.Predictor.Predict(xNew) // scales xNew itself
//
// Other schemes come from NewScheme("kfold:10", SchemeOptions{Rows: m, Seed: 1}),
// "lgo"/"lqo" with Groups, "lpo" (a pairwise measure: auc, cindex); for a
// learner of pairs (Input.Pairs, Input.Cols, Settings.ColKernels,
// Settings.ColLambdas for two-step RLS) NewScheme("rows:5",
// SchemeOptions{RowObjects: m, ColObjects: q}) and the others. A Problem may
// also give rows X and a Method instead of a registered learner.
//
// # Ties and numerical honesty
//
// For ordinal measures (auc, cindex, cindex-row, disagreement, spearman) CV
// predictions that differ by less than their forward error are ties: the
// learner's learn.Perturber twin, solved on labels times a constant and a
// factor perturbed within rounding, measures that error at every λ
// (NoiseTolerance; ScoreWithin scores with it and is what every family's
// scoring uses). A kernel that carries no information therefore scores the
// tie value, as retraining would, and Point.Indistinguishable says so. A
// non-finite CV prediction is an error (ErrNonFinite), never a row dropped
// from the score.
package selection

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/progress"
)

var (
	// ErrGrid is returned for a malformed or empty grid.
	ErrGrid = errors.New("selection: invalid grid")
	// ErrScheme is returned for a CV scheme that does not fit the data or measure.
	ErrScheme = errors.New("selection: invalid cross-validation scheme")
)

// Kind names a cross-validation scheme.
type Kind string

const (
	// LOO is leave-one-out.
	LOO Kind = "loo"
	// Folds holds out each fold in turn (k-fold, leave-group-out, folds from a file).
	Folds Kind = "folds"
	// LPO is leave-pair-out: each pair of rows held out together.
	LPO Kind = "lpo"
	// None trains at one λ without cross-validation.
	None Kind = "none"
	// Objects cross-validates a learner of pairs by its Design: pairs, row
	// objects, column objects, both, or vertices left out.
	Objects Kind = "objects"
)

// Scheme is a cross-validation design.
type Scheme struct {
	Kind Kind
	// Name describes the scheme in reports ("loo", "kfold:10", "folds:FILE", "lpo").
	Name string
	// Folds lists the hold-out sets (Kind Folds); with Repeats > 1, the
	// folds of every repetition one after the other (Repetitions).
	Folds [][]int
	// Repeats is the number of repetitions R of a repeated k-fold (0 or 1:
	// the folds are used once). Every repetition is a partition of the rows
	// cross-validated on its own; the CV value is the mean over the R
	// repetitions of the measure on each repetition's pooled predictions
	// (or, with FoldMean, of its fold mean), and the predictions a Result
	// carries are the first repetition's.
	Repeats int
	// Pairs, when set, are the pairs for LPO, shared by every output; otherwise
	// each output uses its positive–negative pairs (auc) or all pairs with
	// different labels (cindex).
	Pairs []learn.Pair
	// FoldMean scores every fold on its own and averages the folds' values
	// (RLScore's convention; folds where the measure is undefined, such as AUC
	// on a one-class fold, are left out of the mean) instead of scoring the
	// pooled predictions of all folds (the default). Kind Folds only.
	FoldMean bool
	// Basis says what hold-outs of a sparse model do with held-out basis
	// vectors: learn.Keep (the default, also for ""), learn.Remove, or for LOO
	// learn.Skip (leave out only the rows that are not basis vectors).
	Basis learn.Policy
	// Design is the object design of Kind Objects.
	Design learn.Design
}

// Needs returns the capabilities a solution must have for the scheme.
func (sc Scheme) Needs() []learn.Capability {
	switch {
	case sc.Kind == None:
		return nil
	case sc.Kind == LPO:
		return []learn.Capability{learn.CanLeavePairOut}
	case sc.Kind == Objects:
		return []learn.Capability{learn.CanHoldOutObjects}
	case sc.Basis == learn.Remove || sc.Basis == learn.Skip:
		return []learn.Capability{learn.CanHoldOutBasis}
	case sc.Kind == LOO:
		return []learn.Capability{learn.CanLeaveOneOut}
	}
	return []learn.Capability{learn.CanHoldOut}
}

// Point is one point of a CV curve.
type Point struct {
	Lambda float64 `json:"lambda"`
	// ColLambda is the second λ of a learner that has one (two-step RLS's
	// column λ; learn.ColLambdaLearner), 0 otherwise.
	ColLambda float64 `json:"col_lambda,omitempty"`
	// Features is the number of features of a path learner's model at this
	// point (greedy selection's k), 0 otherwise.
	Features int     `json:"features,omitempty"`
	Value    float64 `json:"value"`
	// Indistinguishable says the CV predictions at this λ are all within
	// their rounding error of each other (for every output): the model cannot
	// tell the held-out rows apart, and ordinal measures score it as ties.
	Indistinguishable bool `json:"indistinguishable,omitempty"`
	// FoldMean, SE and NFolds are the spread of the value across the
	// scheme's hold-outs (HasSE): the mean of the NFolds per-fold values —
	// each fold's predictions scored alone, folds where the measure is
	// undefined left out, the folds of every repetition of a repeated
	// k-fold; for leave-one-out with mse or mae each row's loss — and its
	// standard error sd/√NFolds (sd with the NFolds − 1 denominator).
	// NFolds < 2: no standard error. FoldMean is Value with --fold-score
	// mean; with the pooled value it can differ (for mse on folds of
	// unequal size, or a pairwise measure).
	FoldMean float64 `json:"fold_mean,omitempty"`
	SE       float64 `json:"se,omitempty"`
	NFolds   int     `json:"n_folds,omitempty"`
}

// Result is a CV curve and its best point.
type Result struct {
	Curve []Point
	Best  Point
	// BestIndex indexes Curve.
	BestIndex int
	// Predictions are the CV predictions at the best λ (LOO, Folds): m×t, NaN for rows in no fold;
	// for a repeated scheme those of its first repetition.
	Predictions *mat.Dense
	// PairPredictions are the held-out predictions at the best λ (LPO), one per pair and output.
	PairPredictions []PairPrediction
	// Tolerance is the tie tolerance per output of the predictions at the
	// best λ (nil: compared exactly), for scoring them again (FoldValues).
	Tolerance []float64
	// PerOutput (with Options.PerOutput) holds, for every point of Curve,
	// the value of each output's CV predictions alone, scored as Value
	// scores them all; for a measure of one output at a time the point's
	// Value is their mean.
	PerOutput [][]float64
}

// FoldValues scores each fold's CV predictions at the best λ on its own,
// with the tie tolerance the CV value used (NaN where the measure is
// undefined on a fold, e.g. AUC on a one-class fold). y are the labels
// scored against, queries the per-row query ids (nil without). A fold
// holding a row of an earlier fold — a later repetition of a repeated
// k-fold, whose predictions are not the Result's — is NaN: pass
// Scheme.Repetitions()[0]. O(Σ|F| log|F|) plus the measure's.
func (r *Result) FoldValues(y *mat.Dense, folds [][]int, meas measure.Measure, queries []int) []float64 {
	m, _ := y.Dims()
	out := make([]float64, len(folds))
	seen := make([]bool, m)
	for k, f := range folds {
		in := make([]bool, m)
		again := false
		for _, i := range f {
			in[i], again = true, again || seen[i]
		}
		for _, i := range f {
			seen[i] = true
		}
		if again {
			out[k] = math.NaN()
			continue
		}
		c := &cvPredictions{p: r.Predictions, covered: in, tol: r.Tolerance}
		v, _, err := c.score(meas, y, queries)
		if err != nil {
			v = math.NaN()
		}
		out[k] = v
	}
	return out
}

// PairPrediction is the held-out prediction for both rows of a pair, for one output.
type PairPrediction struct {
	Output int
	learn.Pair
	PI, PJ float64
}

// Options tune Select.
type Options struct {
	// Queries are per-row query ids for measures that need them.
	Queries []int
	// Labels are the labels to score against for a learner that has none of
	// its own (learn.Learner.Labels is nil: a preference graph). Giving them
	// for a learner that has labels is an error: labels enter once.
	Labels *mat.Dense
	// Progress, when set, is told of each λ cross-validated (each fold
	// retrained, for SelectRetrain).
	Progress progress.Observer
	// PerOutput asks Select (leave-one-out and folds) for each output's
	// value alone at every λ (Point.PerOutput), for a λ per output
	// (Settings.LambdaPerOutput). Cost: the measure once more per output
	// and λ, and an m-row copy of each output's column.
	PerOutput bool
}

// Select evaluates the CV scheme at every λ of the grid with the given measure
// and returns the curve, the best λ (ties: the larger λ, the simpler model) and
// the CV predictions there. The capabilities the scheme needs (Scheme.Needs)
// are checked on the first solution, before any cross-validation; a missing one
// is an error wrapping learn.ErrCapability that names the learner. Cost: one
// re-solve plus one CV pass per λ — LOO O(m·r·t), folds O(Σ|H|²r + |H|³), LPO
// O(t) per pair after forming A. A learner that is a FoldPathValidator (and
// its twin) is cross-validated by folds or leave-one-out along the whole grid
// in one pass instead (selectPath), with the same results. With Kind None
// the grid must hold one λ and the value is NaN.
func Select(l learn.Learner, grid []float64, sc Scheme, meas measure.Measure, opt Options) (*Result, error) {
	if l == nil {
		return nil, fmt.Errorf("%w: no learner", ErrScheme)
	}
	if len(grid) == 0 {
		return nil, fmt.Errorf("%w: no λ values", ErrGrid)
	}
	var y *mat.Dense
	if sc.Kind == None {
		if len(grid) != 1 {
			return nil, fmt.Errorf("%w: no cross-validation to choose among %d λ values", ErrScheme, len(grid))
		}
	} else {
		var err error
		if y, err = labels(l, opt); err != nil {
			return nil, err
		}
		if err := checkScheme(sc, y, meas); err != nil {
			return nil, err
		}
	}
	tw, err := twin(l, meas, sc)
	if err != nil {
		return nil, err
	}
	if pv, twinPV, ok := pathValidators(l, tw, sc); ok {
		return selectPath(l, pv, twinPV, grid, sc, y, meas, opt)
	}
	res := &Result{BestIndex: -1}
	var bestPred *mat.Dense
	var bestPairs []PairPrediction
	for n, lambda := range grid {
		s, err := l.At(lambda)
		if err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		var s2 learn.Solution // the twin's solution: measures the rounding noise
		if tw != nil {
			if s2, err = tw.At(lambda); err != nil {
				return nil, fmt.Errorf("λ = %g: %w", lambda, err)
			}
		}
		if n == 0 {
			if err := learn.Require(l.Name(), s, sc.Needs()...); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrScheme, sc.Name, err)
			}
		}
		pt := Point{Lambda: lambda, Value: math.NaN()}
		var pred *mat.Dense
		var pairs []PairPrediction
		var tol []float64
		switch sc.Kind {
		case LOO, Folds:
			var r cvPoint
			if r, err = crossValidatePoint(s, s2, sc, y, meas, opt.Queries, opt.PerOutput); err == nil {
				pred, tol = r.cp.p, r.cp.tol
				pt.Value, pt.Indistinguishable = r.v, r.indistinct
				if opt.PerOutput {
					res.PerOutput = append(res.PerOutput, r.perOutput)
				}
				pt.setSpread(r.spread)
			}
		case LPO:
			pairs, pt.Value, pt.Indistinguishable, err = lpo(s, s2, sc, y, meas)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at λ = %g: %w", sc.Name, lambda, err)
		}
		res.Curve = append(res.Curve, pt)
		if res.BestIndex < 0 || meas.Better(pt.Value, res.Best.Value) || (pt.Value == res.Best.Value && lambda > res.Best.Lambda) {
			res.BestIndex, res.Best, bestPred, bestPairs, res.Tolerance = n, pt, pred, pairs, tol
		}
		opt.Progress.Step("cross-validating λ", n+1, len(grid))
	}
	res.Predictions, res.PairPredictions = bestPred, bestPairs
	return res, nil
}

// labels returns the labels CV scores against: the learner's, or for a learner
// without labels Options.Labels.
func labels(l learn.Learner, opt Options) (*mat.Dense, error) {
	y := l.Labels()
	switch {
	case y != nil && opt.Labels != nil:
		return nil, fmt.Errorf("%w: learner %s has labels of its own; Options.Labels is for learners without", ErrScheme, l.Name())
	case y == nil && opt.Labels == nil:
		return nil, fmt.Errorf("%w: learner %s has no labels to score against: give Options.Labels", ErrScheme, l.Name())
	case y == nil:
		y = opt.Labels
	}
	return y, nil
}

func checkScheme(sc Scheme, y *mat.Dense, meas measure.Measure) error {
	m, _ := y.Dims()
	switch sc.Kind {
	case LOO:
	case Folds:
		if err := checkRepetitions(sc, m); err != nil {
			return err
		}
	case LPO:
		if !meas.Pairwise {
			return fmt.Errorf("%w: leave-pair-out needs a pairwise measure (auc, cindex), not %s", ErrScheme, meas.Name)
		}
	case None:
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrScheme, sc.Kind)
	}
	return nil
}

// predict returns the LOO or fold predictions of the scheme under its basis
// policy, with the rows they cover; the solution has the capabilities
// Scheme.Needs lists.
func predict(s learn.Solution, sc Scheme, y *mat.Dense) (*cvPredictions, error) {
	m, t := y.Dims()
	c := &cvPredictions{}
	folds := sc.Folds
	var holdOut func(rows []int) (*mat.Dense, error)
	switch {
	case sc.Kind == LOO && (sc.Basis == "" || sc.Basis == learn.Keep):
		p, err := s.(learn.LeaveOneOuter).LeaveOneOut()
		c.p = p
		return c, err
	case sc.Kind == LOO && sc.Basis == learn.Skip:
		// basis rows are not held out: LeaveOneOutSkip marks them NaN
		p, err := s.(learn.BasisHoldOuter).LeaveOneOutSkip()
		if err != nil {
			return nil, err
		}
		c.p, c.covered = p, make([]bool, m)
		for i := range c.covered {
			c.covered[i] = !math.IsNaN(p.At(i, 0))
		}
		return c, nil
	case sc.Kind == LOO && sc.Basis == learn.Remove:
		folds = make([][]int, m)
		for i := range folds {
			folds[i] = []int{i}
		}
		fallthrough
	case sc.Basis == learn.Remove:
		bs := s.(learn.BasisHoldOuter)
		holdOut = func(rows []int) (*mat.Dense, error) { return bs.HoldOutBasis(rows, learn.Remove) }
	case sc.Kind == Folds && (sc.Basis == "" || sc.Basis == learn.Keep):
		holdOut = s.(learn.HoldOuter).HoldOut
	default:
		return nil, fmt.Errorf("%w: basis policy %q does not apply to %s", ErrScheme, sc.Basis, sc.Kind)
	}
	c.p, c.covered = nanDense(m, t), make([]bool, m)
	for k, f := range folds {
		p, err := holdOut(f)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", k, err)
		}
		for n, i := range f {
			c.p.SetRow(i, p.RawRowView(n))
			c.covered[i] = true
		}
	}
	return c, nil
}

// predictWithNoise is predict with, when the twin's solution s2 is given, the
// per-output tie tolerances measured against it.
func predictWithNoise(s, s2 learn.Solution, sc Scheme, y *mat.Dense) (*cvPredictions, error) {
	c, err := predict(s, sc, y)
	if err != nil || s2 == nil {
		return c, err
	}
	sc2 := sc
	if sc.Kind == Folds {
		sc2.Folds = twinFolds(sc.Folds)
	}
	c2, err := predict(s2, sc2, y)
	if err != nil {
		return nil, err
	}
	covered := c.covered
	if sc.Kind == Folds {
		covered = c2.covered
	}
	c.tol = noiseTolerance(c.p, c2.p, covered)
	return c, nil
}

// nanDense returns an m×t matrix of NaN.
func nanDense(m, t int) *mat.Dense {
	out := mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		row := out.RawRowView(i)
		for c := range row {
			row[c] = math.NaN()
		}
	}
	return out
}

// lpo runs leave-pair-out per output and returns the mean over outputs of the
// share of pairs ordered like their labels, prediction ties ½ (Pahikkala et al. 2008).
func lpo(s, s2 learn.Solution, sc Scheme, y *mat.Dense, meas measure.Measure) ([]PairPrediction, float64, bool, error) {
	all, scores, indistinct, err := lpoPerOutput(s, s2, sc, y, meas)
	if err != nil {
		return nil, 0, false, err
	}
	total := 0.0
	for _, v := range scores {
		total += v
	}
	return all, total / float64(len(scores)), indistinct, nil
}

// lpoPerOutput is leave-pair-out with one score per output.
func lpoPerOutput(s, s2 learn.Solution, sc Scheme, y *mat.Dense, meas measure.Measure) ([]PairPrediction, []float64, bool, error) {
	_, t := y.Dims()
	var all []PairPrediction
	scores := make([]float64, t)
	indistinct := true
	for c := 0; c < t; c++ {
		yc := mat.Col(nil, c, y)
		pairs := sc.Pairs
		if pairs == nil {
			pairs = DefaultPairs(yc, meas)
		}
		if c == 0 {
			all = make([]PairPrediction, 0, len(pairs)*t) // every output has as many pairs when they are shared
		}
		if meas.Name == "auc" && len(pairs) == 0 {
			return nil, nil, false, fmt.Errorf("%w: output %d: AUC needs two classes, labels > 0 and labels ≤ 0, and %s: for a continuous label use the cindex measure: %w",
				ErrScheme, c, oneClass(yc), measure.ErrUndefined)
		}
		if usable := countDifferent(pairs, yc); usable < 2 {
			return nil, nil, false, fmt.Errorf("%w: output %d has %d pair(s) with different labels, leave-pair-out needs 2: %w", ErrScheme, c, usable, measure.ErrUndefined)
		}
		pi, pj, err := s.(learn.PairHoldOuter).LeavePairOut(pairs)
		if err != nil {
			return nil, nil, false, fmt.Errorf("output %d: %w", c, err)
		}
		a, b := mat.Col(nil, c, pi), mat.Col(nil, c, pj)
		for n, p := range pairs {
			if math.IsNaN(a[n]) || math.IsInf(a[n], 0) || math.IsNaN(b[n]) || math.IsInf(b[n], 0) {
				return nil, nil, false, fmt.Errorf("%w: pair (%d, %d), output %d: %v, %v (rescale the features, e.g. standardize them)", ErrNonFinite, p.I, p.J, c, a[n], b[n])
			}
			all = append(all, PairPrediction{Output: c, Pair: p, PI: a[n], PJ: b[n]})
		}
		tol := 0.0
		if s2 != nil { // the twin's predictions on a sample of the pairs measure the rounding noise
			idx := twinPairs(pairs)
			sub := make([]learn.Pair, len(idx))
			for k, n := range idx {
				sub[k] = pairs[n]
			}
			qi, qj, err := s2.(learn.PairHoldOuter).LeavePairOut(sub)
			if err != nil {
				return nil, nil, false, fmt.Errorf("output %d: %w", c, err)
			}
			for k, n := range idx {
				tol = math.Max(tol, math.Max(math.Abs(qi.At(k, c)/noiseScale-a[n]), math.Abs(qj.At(k, c)/noiseScale-b[n])))
			}
			tol *= noiseFactor
		}
		for n := range pairs {
			if math.Abs(a[n]-b[n]) > tol {
				indistinct = false
			}
		}
		if !meas.Ordinal {
			tol = 0
		}
		if scores[c], err = cv.PairScoreWithin(pairs, yc, a, b, tol); err != nil {
			return nil, nil, false, fmt.Errorf("output %d: %w", c, err)
		}
	}
	return all, scores, indistinct, nil
}

// oneClass describes labels that are all on one side of 0.
func oneClass(y []float64) string {
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	if pos == len(y) {
		return fmt.Sprintf("all %d labels are > 0", len(y))
	}
	return fmt.Sprintf("all %d labels are ≤ 0", len(y))
}

// countDifferent counts the pairs whose labels differ.
func countDifferent(pairs []learn.Pair, y []float64) int {
	n := 0
	for _, p := range pairs {
		if p.I >= 0 && p.J >= 0 && p.I < len(y) && p.J < len(y) && y[p.I] != y[p.J] {
			n++
		}
	}
	return n
}

// DefaultPairs returns the leave-pair-out pairs for one output: positive–negative
// pairs (label > 0 against label ≤ 0) for auc, every pair with different labels
// otherwise. O(m²).
func DefaultPairs(y []float64, meas measure.Measure) []learn.Pair {
	if meas.Name == "auc" {
		return cv.PositiveNegativePairs(y)
	}
	return cv.DifferentLabelPairs(y)
}

// ParseGrid parses a grid SPEC:
//
//   - comma-separated values ("0.1,1,10"), each a number or a power 2^e or
//     10^e with an integer e;
//   - a power range "2^a..2^b" or "10^a..10^b": every integer exponent from
//     a to b (10^e is the float64 nearest to it, as strconv reads "1e<e>");
//   - N log-spaced points "a..b:N" from a to b inclusive (a, b > 0 as
//     values or powers, N ≥ 2): a·(b/a)^(i/(N−1)), i = 0 … N−1, as numpy's
//     geomspace, the end points exactly a and b.
//
// Values must be finite; positive is required when positive is set (always
// for ranges). At most 10,001 values. Time O(len(spec) + N).
func ParseGrid(spec string, positive bool) ([]float64, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("%w: empty", ErrGrid)
	}
	if lo, hi, ok := strings.Cut(spec, ".."); ok {
		if hi, count, ok := strings.Cut(hi, ":"); ok {
			return logRange(spec, lo, hi, count)
		}
		a, base, err := power(lo)
		if err == nil {
			var b, base2 int
			if b, base2, err = power(hi); err == nil && base2 != base {
				err = fmt.Errorf("%q and %q have different bases", strings.TrimSpace(lo), strings.TrimSpace(hi))
			}
			if err == nil {
				return powerRange(spec, base, a, b)
			}
		}
		return nil, fmt.Errorf("%w: %q: %w; %s", ErrGrid, spec, err, gridForms)
	}
	out, err := valueList(spec, positive)
	if err != nil && strings.ContainsAny(spec, ":") {
		return nil, fmt.Errorf("%w; %s", err, gridForms)
	}
	return out, err
}

// gridForms is the hint of a grid error.
const gridForms = "a grid is a list 0.1,1,10, a range 2^a..2^b or 10^a..10^b (integers a ≤ b), or N log-spaced points a..b:N (e.g. 1e-3..1e3:13)"

// maxGrid bounds the number of values of a range.
const maxGrid = 10001

// powerRange is base^a, base^(a+1), …, base^b (base 2 or 10).
func powerRange(spec string, base, a, b int) ([]float64, error) {
	if a > b {
		return nil, fmt.Errorf("%w: %q: range from %d^%d down to %d^%d", ErrGrid, spec, base, a, base, b)
	}
	if b-a >= maxGrid {
		return nil, fmt.Errorf("%w: %q: %d values (at most %d)", ErrGrid, spec, b-a+1, maxGrid)
	}
	var out []float64
	for e := a; e <= b; e++ {
		out = append(out, powerValue(base, e))
	}
	return out, nil
}

// powerValue is base^e: exact for base 2, the float64 nearest to 10^e
// for base 10 (e within power's bounds).
func powerValue(base, e int) float64 {
	if base == 2 {
		return math.Ldexp(1, e)
	}
	v, _ := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
	return v
}

// logRange parses "a..b:N", N log-spaced points from a to b.
func logRange(spec, lo, hi, count string) ([]float64, error) {
	a, err := gridValue(lo)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w; %s", ErrGrid, spec, err, gridForms)
	}
	b, err := gridValue(hi)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w; %s", ErrGrid, spec, err, gridForms)
	}
	n, err := strconv.Atoi(strings.TrimSpace(count))
	switch {
	case err != nil || n < 2:
		return nil, fmt.Errorf("%w: %q: the point count %q is not an integer ≥ 2; %s", ErrGrid, spec, strings.TrimSpace(count), gridForms)
	case n > maxGrid:
		return nil, fmt.Errorf("%w: %q: %d values (at most %d)", ErrGrid, spec, n, maxGrid)
	case !(a > 0 && b > 0):
		return nil, fmt.Errorf("%w: %q: log-spaced points need a, b > 0", ErrGrid, spec)
	case a > b:
		return nil, fmt.Errorf("%w: %q: range from %g down to %g", ErrGrid, spec, a, b)
	}
	la, lb := math.Log(a), math.Log(b)
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Exp(la + (lb-la)*float64(i)/float64(n-1))
	}
	out[0], out[n-1] = a, b
	return out, nil
}

// valueList parses comma-separated values (gridValue).
func valueList(spec string, positive bool) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		v, err := gridValue(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %q in %q is not a finite number", ErrGrid, f, spec)
		}
		if positive && v <= 0 {
			return nil, fmt.Errorf("%w: %v in %q must be > 0", ErrGrid, v, spec)
		}
		out = append(out, v)
	}
	return out, nil
}

// gridValue parses a finite number or a power 2^e or 10^e.
func gridValue(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		e, base, err2 := power(s)
		if err2 != nil {
			return 0, fmt.Errorf("%q is not a number, 2^e or 10^e", s)
		}
		v, err = powerValue(base, e), nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not finite", s)
	}
	return v, nil
}

// power parses "2^e" or "10^e" for an integer e, giving e and the base.
func power(s string) (e, base int, err error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, "2^")
	base = 2
	if !ok {
		rest, ok = strings.CutPrefix(s, "10^")
		base = 10
	}
	if !ok {
		return 0, 0, fmt.Errorf("not 2^e or 10^e: %q", s)
	}
	e, err = strconv.Atoi(strings.TrimSpace(rest))
	if err != nil {
		return 0, 0, fmt.Errorf("%q: the exponent is not an integer", s)
	}
	if base == 2 && (e < -1074 || e > 1023) {
		return 0, 0, fmt.Errorf("%q: 2^%d is not a finite nonzero float64 (exponents from -1074 to 1023)", s, e)
	}
	if base == 10 && (e < -323 || e > 308) {
		return 0, 0, fmt.Errorf("%q: 10^%d is not a finite nonzero float64 (exponents from -323 to 308)", s, e)
	}
	return e, base, nil
}

// DefaultGrid is 2^-15 … 2^15.
func DefaultGrid() []float64 {
	g, _ := ParseGrid("2^-15..2^15", true)
	return g
}

// Retrainer trains a fresh model on the rows train and returns, for any λ, its
// predictions for the rows test (|test|×t). Used by SelectRetrain.
type Retrainer func(train, test []int) (func(lambda float64) (*mat.Dense, error), error)

// SelectRetrain cross-validates by training a new model per fold (once per
// fold; every λ is then a re-solve of that fold's model). It is the naive
// baseline, and the only exact choice when the training itself depends on the
// fold — e.g. basis vectors selected anew from each fold's training rows
// (Pahikkala, Suominen & Boberg 2012, sect. 6.2, Approach 3). Cost: one training per fold.
func SelectRetrain(retrain Retrainer, y *mat.Dense, grid []float64, folds [][]int, name string, meas measure.Measure, opt Options) (*Result, error) {
	if len(grid) == 0 {
		return nil, fmt.Errorf("%w: no λ values", ErrGrid)
	}
	m, t := y.Dims()
	if err := cv.Check(folds, m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrScheme, err)
	}
	preds := make([]*mat.Dense, len(grid))
	for n := range preds {
		preds[n] = nanDense(m, t)
	}
	in, covered := make([]bool, m), make([]bool, m)
	for k, f := range folds {
		clear(in)
		for _, i := range f {
			in[i] = true
		}
		var train []int
		for i := 0; i < m; i++ {
			if !in[i] {
				train = append(train, i)
			}
		}
		solve, err := retrain(train, f)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", k, err)
		}
		for _, i := range f {
			covered[i] = true
		}
		for n, lambda := range grid {
			p, err := solve(lambda)
			if err != nil {
				return nil, fmt.Errorf("fold %d, λ = %g: %w", k, lambda, err)
			}
			for r, i := range f {
				preds[n].SetRow(i, p.RawRowView(r))
			}
		}
		opt.Progress.Step("retraining fold", k+1, len(folds))
	}
	res := &Result{BestIndex: -1}
	for n, lambda := range grid {
		c := &cvPredictions{p: preds[n], covered: covered} // retrained: no shortcut, no tie tolerance
		v, _, err := c.score(meas, y, opt.Queries)
		if err != nil {
			return nil, fmt.Errorf("%s at λ = %g: %w", name, lambda, err)
		}
		pt := Point{Lambda: lambda, Value: v}
		pt.setSpread(c.foldValues(meas, y, opt.Queries, folds))
		res.Curve = append(res.Curve, pt)
		if res.BestIndex < 0 || meas.Better(v, res.Best.Value) || (v == res.Best.Value && lambda > res.Best.Lambda) {
			res.BestIndex, res.Best, res.Predictions = n, pt, preds[n]
		}
	}
	return res, nil
}
