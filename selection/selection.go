// Package selection chooses the regularization parameter λ (and kernel
// parameters) by exact cross-validation: for every λ of a grid a trained
// factorization is re-solved (no refactorization) and cross-validated with the
// learner's shortcuts — leave-one-out, hold-out folds or leave-pair-out — and the
// measure is computed on the pooled CV predictions.
package selection

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rls"
)

var (
	// ErrGrid is returned for a malformed or empty grid.
	ErrGrid = errors.New("selection: invalid grid")
	// ErrScheme is returned for a CV scheme that does not fit the data or measure.
	ErrScheme = errors.New("selection: invalid cross-validation scheme")
)

// Solution is what a learner gives at one λ: its cross-validation shortcuts.
// *rls.Solution implements it.
type Solution interface {
	LeaveOneOut() (*mat.Dense, error)
	HoldOut(rows []int) (*mat.Dense, error)
	LeavePairOut(pairs []rls.Pair) (pi, pj *mat.Dense, err error)
}

// Kind names a cross-validation scheme.
type Kind string

const (
	// LOO is leave-one-out.
	LOO Kind = "loo"
	// Folds holds out each fold in turn (k-fold, leave-group-out, folds from a file).
	Folds Kind = "folds"
	// LPO is leave-pair-out: each pair of rows held out together.
	LPO Kind = "lpo"
)

// Scheme is a cross-validation design.
type Scheme struct {
	Kind Kind
	// Name describes the scheme in reports ("loo", "kfold:10", "folds:FILE", "lpo").
	Name string
	// Folds lists the hold-out sets (Kind Folds).
	Folds [][]int
	// Pairs, when set, are the pairs for LPO, shared by every output; otherwise
	// each output uses its positive–negative pairs (auc) or all pairs with
	// different labels (cindex).
	Pairs []rls.Pair
	// Basis says what hold-outs of a sparse model do with held-out basis
	// vectors: BasisKeep (the default) or BasisRemove, or for LOO BasisSkip
	// (leave out only the rows that are not basis vectors).
	Basis BasisPolicy
}

// BasisPolicy is the treatment of held-out basis vectors (paper 004, sect. 6.4).
type BasisPolicy string

const (
	// BasisKeep keeps held-out basis vectors in the basis.
	BasisKeep BasisPolicy = "keep"
	// BasisRemove takes them out of the basis (what retraining on the rest gives).
	BasisRemove BasisPolicy = "remove"
	// BasisSkip (LOO only) predicts only the rows that are not basis vectors.
	BasisSkip BasisPolicy = "skip"
)

// basisSolution is a solution whose hold-outs can remove basis vectors (*rls.Solution).
type basisSolution interface {
	HoldOutBasis(rows []int, p rls.Policy) (*mat.Dense, error)
	LeaveOneOutSkip() (*mat.Dense, error)
}

// Point is one point of a CV curve.
type Point struct {
	Lambda float64 `json:"lambda"`
	Value  float64 `json:"value"`
}

// Result is a CV curve and its best point.
type Result struct {
	Curve []Point
	Best  Point
	// BestIndex indexes Curve.
	BestIndex int
	// Predictions are the CV predictions at the best λ (LOO, Folds): m×t, NaN for rows in no fold.
	Predictions *mat.Dense
	// PairPredictions are the held-out predictions at the best λ (LPO), one per pair and output.
	PairPredictions []PairPrediction
}

// PairPrediction is the held-out prediction for both rows of a pair, for one output.
type PairPrediction struct {
	Output int
	rls.Pair
	PI, PJ float64
}

// Options tune Select.
type Options struct {
	// Queries are per-row query ids for measures that need them.
	Queries []int
	// Progress, when set, is called after each λ.
	Progress func(done, total int)
}

// Select evaluates the CV scheme at every λ of the grid with the given measure
// and returns the curve, the best λ (ties: the larger λ, the simpler model) and
// the CV predictions there. solve is typically (*rls.RLS).Solve. Cost: one solve
// plus one CV pass per λ — LOO O(m·r·t), folds O(Σ|H|²r + |H|³), LPO O(t) per
// pair after forming A.
func Select[S Solution](solve func(float64) (S, error), y *mat.Dense, grid []float64, sc Scheme, meas measure.Measure, opt Options) (*Result, error) {
	if len(grid) == 0 {
		return nil, fmt.Errorf("%w: no λ values", ErrGrid)
	}
	if err := checkScheme(sc, y, meas); err != nil {
		return nil, err
	}
	res := &Result{BestIndex: -1}
	var bestPred *mat.Dense
	var bestPairs []PairPrediction
	for n, lambda := range grid {
		s, err := solve(lambda)
		if err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		var v float64
		var pred *mat.Dense
		var pairs []PairPrediction
		switch sc.Kind {
		case LOO:
			pred, err = looPredictions(s, sc, y)
			if err == nil {
				v, err = scoreCovered(meas, y, pred, opt.Queries)
			}
		case Folds:
			pred, err = foldPredictions(s, sc, y)
			if err == nil {
				v, err = scoreCovered(meas, y, pred, opt.Queries)
			}
		case LPO:
			pairs, v, err = lpo(s, sc, y, meas)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at λ = %g: %w", sc.Name, lambda, err)
		}
		res.Curve = append(res.Curve, Point{Lambda: lambda, Value: v})
		if res.BestIndex < 0 || meas.Better(v, res.Best.Value) || (v == res.Best.Value && lambda > res.Best.Lambda) {
			res.BestIndex, res.Best, bestPred, bestPairs = n, Point{lambda, v}, pred, pairs
		}
		if opt.Progress != nil {
			opt.Progress(n+1, len(grid))
		}
	}
	res.Predictions, res.PairPredictions = bestPred, bestPairs
	return res, nil
}

func checkScheme(sc Scheme, y *mat.Dense, meas measure.Measure) error {
	m, _ := y.Dims()
	switch sc.Kind {
	case LOO:
	case Folds:
		if err := cv.Check(sc.Folds, m); err != nil {
			return fmt.Errorf("%w: %w", ErrScheme, err)
		}
	case LPO:
		if !meas.Pairwise {
			return fmt.Errorf("%w: leave-pair-out needs a pairwise measure (auc, cindex), not %s", ErrScheme, meas.Name)
		}
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrScheme, sc.Kind)
	}
	return nil
}

// looPredictions is leave-one-out under the scheme's basis policy.
func looPredictions(s Solution, sc Scheme, y *mat.Dense) (*mat.Dense, error) {
	switch sc.Basis {
	case "", BasisKeep:
		return s.LeaveOneOut()
	case BasisSkip, BasisRemove:
		bs, ok := any(s).(basisSolution)
		if !ok {
			return nil, fmt.Errorf("%w: basis policy %q needs a sparse RLS model", ErrScheme, sc.Basis)
		}
		if sc.Basis == BasisSkip {
			return bs.LeaveOneOutSkip()
		}
		m, _ := y.Dims()
		folds := make([][]int, m)
		for i := range folds {
			folds[i] = []int{i}
		}
		return foldPredictions(s, Scheme{Kind: Folds, Folds: folds, Basis: BasisRemove}, y)
	}
	return nil, fmt.Errorf("%w: unknown basis policy %q", ErrScheme, sc.Basis)
}

// foldPredictions holds out each fold and collects the predictions; rows in no fold are NaN.
func foldPredictions(s Solution, sc Scheme, y *mat.Dense) (*mat.Dense, error) {
	folds := sc.Folds
	holdOut := s.HoldOut
	switch sc.Basis {
	case "", BasisKeep:
	case BasisRemove:
		bs, ok := any(s).(basisSolution)
		if !ok {
			return nil, fmt.Errorf("%w: basis policy remove needs an RLS model", ErrScheme)
		}
		holdOut = func(rows []int) (*mat.Dense, error) { return bs.HoldOutBasis(rows, rls.Remove) }
	default:
		return nil, fmt.Errorf("%w: basis policy %q does not apply to folds", ErrScheme, sc.Basis)
	}
	m, t := y.Dims()
	pred := mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		for c := 0; c < t; c++ {
			pred.Set(i, c, math.NaN())
		}
	}
	for k, f := range folds {
		p, err := holdOut(f)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", k, err)
		}
		for n, i := range f {
			pred.SetRow(i, p.RawRowView(n))
		}
	}
	return pred, nil
}

// scoreCovered scores the rows that have predictions (not NaN).
func scoreCovered(meas measure.Measure, y, pred *mat.Dense, q []int) (float64, error) {
	m, t := y.Dims()
	var rows []int
	for i := 0; i < m; i++ {
		if !math.IsNaN(pred.At(i, 0)) {
			rows = append(rows, i)
		}
	}
	if len(rows) == m {
		return meas.Score(y, pred, q)
	}
	ys, ps := mat.NewDense(len(rows), t, nil), mat.NewDense(len(rows), t, nil)
	var qs []int
	for n, i := range rows {
		ys.SetRow(n, y.RawRowView(i))
		ps.SetRow(n, pred.RawRowView(i))
		if q != nil {
			qs = append(qs, q[i])
		}
	}
	return meas.Score(ys, ps, qs)
}

// lpo runs leave-pair-out per output and returns the mean over outputs of the
// share of pairs ordered like their labels, prediction ties ½ (paper 000).
func lpo(s Solution, sc Scheme, y *mat.Dense, meas measure.Measure) ([]PairPrediction, float64, error) {
	all, scores, err := lpoPerOutput(s, sc, y, meas)
	if err != nil {
		return nil, 0, err
	}
	total := 0.0
	for _, v := range scores {
		total += v
	}
	return all, total / float64(len(scores)), nil
}

// lpoPerOutput is leave-pair-out with one score per output.
func lpoPerOutput(s Solution, sc Scheme, y *mat.Dense, meas measure.Measure) ([]PairPrediction, []float64, error) {
	_, t := y.Dims()
	var all []PairPrediction
	scores := make([]float64, t)
	for c := 0; c < t; c++ {
		yc := mat.Col(nil, c, y)
		pairs := sc.Pairs
		if pairs == nil {
			pairs = DefaultPairs(yc, meas)
		}
		if usable := countDifferent(pairs, yc); usable < 2 {
			return nil, nil, fmt.Errorf("%w: output %d has %d pair(s) with different labels, leave-pair-out needs 2: %w", ErrScheme, c, usable, measure.ErrUndefined)
		}
		pi, pj, err := s.LeavePairOut(pairs)
		if err != nil {
			return nil, nil, fmt.Errorf("output %d: %w", c, err)
		}
		a, b := mat.Col(nil, c, pi), mat.Col(nil, c, pj)
		for n, p := range pairs {
			all = append(all, PairPrediction{Output: c, Pair: p, PI: a[n], PJ: b[n]})
		}
		if scores[c], err = cv.PairScore(pairs, yc, a, b); err != nil {
			return nil, nil, fmt.Errorf("output %d: %w", c, err)
		}
	}
	return all, scores, nil
}

// countDifferent counts the pairs whose labels differ.
func countDifferent(pairs []rls.Pair, y []float64) int {
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
func DefaultPairs(y []float64, meas measure.Measure) []rls.Pair {
	if meas.Name == "auc" {
		return cv.PositiveNegativePairs(y)
	}
	return cv.DifferentLabelPairs(y)
}

// ParseGrid parses a grid SPEC: comma-separated numbers ("0.1,1,10"), or a
// base-2 range "2^a..2^b" (every integer exponent from a to b). Values must be
// finite; positive is required when positive is set.
func ParseGrid(spec string, positive bool) ([]float64, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("%w: empty", ErrGrid)
	}
	if lo, hi, ok := strings.Cut(spec, ".."); ok {
		a, err1 := exponent(lo)
		b, err2 := exponent(hi)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: %q: a range is written 2^a..2^b with integers a ≤ b", ErrGrid, spec)
		}
		if a > b {
			return nil, fmt.Errorf("%w: %q: range from 2^%d down to 2^%d", ErrGrid, spec, a, b)
		}
		if b-a > 10000 {
			return nil, fmt.Errorf("%w: %q: %d values", ErrGrid, spec, b-a+1)
		}
		var out []float64
		for e := a; e <= b; e++ {
			out = append(out, math.Ldexp(1, e))
		}
		return out, nil
	}
	var out []float64
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			if e, err2 := exponent(f); err2 == nil {
				v, err = math.Ldexp(1, e), nil
			}
		}
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %q in %q is not a finite number", ErrGrid, f, spec)
		}
		if positive && v <= 0 {
			return nil, fmt.Errorf("%w: %v in %q must be > 0", ErrGrid, v, spec)
		}
		out = append(out, v)
	}
	return out, nil
}

// exponent parses "2^e" for an integer e.
func exponent(s string) (int, error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, "2^")
	if !ok {
		return 0, fmt.Errorf("not 2^e: %q", s)
	}
	e, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || e < -1074 || e > 1023 {
		return 0, fmt.Errorf("bad exponent in %q", s)
	}
	return e, nil
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
// (paper 004, sect. 6.2, Approach 3). Cost: one training per fold.
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
		preds[n] = mat.NewDense(m, t, nil)
		for i := 0; i < m; i++ {
			for c := 0; c < t; c++ {
				preds[n].Set(i, c, math.NaN())
			}
		}
	}
	in := make([]bool, m)
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
		for n, lambda := range grid {
			p, err := solve(lambda)
			if err != nil {
				return nil, fmt.Errorf("fold %d, λ = %g: %w", k, lambda, err)
			}
			for r, i := range f {
				preds[n].SetRow(i, p.RawRowView(r))
			}
		}
		if opt.Progress != nil {
			opt.Progress(k+1, len(folds))
		}
	}
	res := &Result{BestIndex: -1}
	for n, lambda := range grid {
		v, err := scoreCovered(meas, y, preds[n], opt.Queries)
		if err != nil {
			return nil, fmt.Errorf("%s at λ = %g: %w", name, lambda, err)
		}
		res.Curve = append(res.Curve, Point{Lambda: lambda, Value: v})
		if res.BestIndex < 0 || meas.Better(v, res.Best.Value) || (v == res.Best.Value && lambda > res.Best.Lambda) {
			res.BestIndex, res.Best, res.Predictions = n, Point{lambda, v}, preds[n]
		}
	}
	return res, nil
}
