// Package selection chooses the regularization parameter λ and kernel
// parameters by exact cross-validation, through the learner contract of
// package learn.
//
// Select evaluates one trained learner along a λ grid: at every λ the learner
// is re-solved (no refactorization) and cross-validated with its shortcuts —
// leave-one-out, hold-out folds or leave-pair-out — and the measure is computed
// on the pooled CV predictions. The capabilities the scheme needs are checked
// before the λ loop starts.
//
// Search adds the kernel-parameter grid: it trains once per kernel setting
// (one factorization each), runs Select on each, picks the best setting and λ,
// and returns its predictor — with the scaler when the data were standardized —
// and optionally a permutation test. NewScheme builds a scheme from a spec
// such as "loo", "kfold:10", "lgo" or "lpo"; RandomBasisPerFold retrains sparse
// models per fold when the basis itself must depend on the fold.
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
	Pairs []learn.Pair
	// Basis says what hold-outs of a sparse model do with held-out basis
	// vectors: learn.Keep (the default, also for ""), learn.Remove, or for LOO
	// learn.Skip (leave out only the rows that are not basis vectors).
	Basis learn.Policy
}

// Needs returns the capabilities a solution must have for the scheme.
func (sc Scheme) Needs() []learn.Capability {
	switch {
	case sc.Kind == None:
		return nil
	case sc.Kind == LPO:
		return []learn.Capability{learn.CanLeavePairOut}
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
	// Progress, when set, is called after each λ.
	Progress func(done, total int)
}

// Select evaluates the CV scheme at every λ of the grid with the given measure
// and returns the curve, the best λ (ties: the larger λ, the simpler model) and
// the CV predictions there. The capabilities the scheme needs (Scheme.Needs)
// are checked on the first solution, before any cross-validation; a missing one
// is an error wrapping learn.ErrCapability that names the learner. Cost: one
// re-solve plus one CV pass per λ — LOO O(m·r·t), folds O(Σ|H|²r + |H|³), LPO
// O(t) per pair after forming A. With Kind None the grid must hold one λ and
// the value is NaN.
func Select(l learn.Learner, grid []float64, sc Scheme, meas measure.Measure, opt Options) (*Result, error) {
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
	res := &Result{BestIndex: -1}
	var bestPred *mat.Dense
	var bestPairs []PairPrediction
	for n, lambda := range grid {
		s, err := l.At(lambda)
		if err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		if n == 0 {
			if err := learn.Require(l.Name(), s, sc.Needs()...); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrScheme, sc.Name, err)
			}
		}
		v := math.NaN()
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
			pairs, v, err = lpo(s.(learn.PairHoldOuter), sc, y, meas)
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
		if err := cv.Check(sc.Folds, m); err != nil {
			return fmt.Errorf("%w: %w", ErrScheme, err)
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

// looPredictions is leave-one-out under the scheme's basis policy; the
// solution has the capabilities Scheme.Needs lists.
func looPredictions(s learn.Solution, sc Scheme, y *mat.Dense) (*mat.Dense, error) {
	switch sc.Basis {
	case "", learn.Keep:
		return s.(learn.LeaveOneOuter).LeaveOneOut()
	case learn.Skip:
		return s.(learn.BasisHoldOuter).LeaveOneOutSkip()
	case learn.Remove:
		m, _ := y.Dims()
		folds := make([][]int, m)
		for i := range folds {
			folds[i] = []int{i}
		}
		return foldPredictions(s, Scheme{Kind: Folds, Folds: folds, Basis: learn.Remove}, y)
	}
	return nil, fmt.Errorf("%w: unknown basis policy %q", ErrScheme, sc.Basis)
}

// foldPredictions holds out each fold and collects the predictions; rows in no
// fold are NaN. The solution has the capabilities Scheme.Needs lists.
func foldPredictions(s learn.Solution, sc Scheme, y *mat.Dense) (*mat.Dense, error) {
	var holdOut func(rows []int) (*mat.Dense, error)
	switch sc.Basis {
	case "", learn.Keep:
		holdOut = s.(learn.HoldOuter).HoldOut
	case learn.Remove:
		bs := s.(learn.BasisHoldOuter)
		holdOut = func(rows []int) (*mat.Dense, error) { return bs.HoldOutBasis(rows, learn.Remove) }
	default:
		return nil, fmt.Errorf("%w: basis policy %q does not apply to folds", ErrScheme, sc.Basis)
	}
	m, t := y.Dims()
	pred := nanDense(m, t)
	for k, f := range sc.Folds {
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
func lpo(s learn.PairHoldOuter, sc Scheme, y *mat.Dense, meas measure.Measure) ([]PairPrediction, float64, error) {
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
func lpoPerOutput(s learn.PairHoldOuter, sc Scheme, y *mat.Dense, meas measure.Measure) ([]PairPrediction, []float64, error) {
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
		preds[n] = nanDense(m, t)
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
