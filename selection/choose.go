package selection

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/measure"
)

// The rules that choose a point of a CV curve (Settings.Choose).
const (
	// ChooseBest takes the best CV value (ties: the larger λ).
	ChooseBest = "best"
	// Choose1SE is the one-standard-error rule (Breiman, Friedman, Olshen &
	// Stone 1984; glmnet's lambda.1se, Friedman, Hastie & Tibshirani 2010):
	// the largest λ whose fold mean is within one standard error of the best
	// fold mean (OneSE).
	Choose1SE = "1se"
)

// ErrNoSE is returned when the one-standard-error rule is asked of a curve
// without standard errors.
var ErrNoSE = errors.New("selection: no standard error to choose by")

// HasSE reports whether Select gives every point of the scheme's curve a
// standard error with the measure: a scheme of folds (k-fold and its
// stratified, repeated and group forms, leave-group-out, folds given) for
// every measure, leave-one-out for the per-row losses mse and mae (the
// spread across rows); not leave-pair-out, the object designs of a learner
// of pairs, nor no cross-validation.
func HasSE(sc Scheme, meas measure.Measure) bool {
	switch sc.Kind {
	case Folds:
		return true
	case LOO:
		return perRowLoss(meas) != nil
	}
	return false
}

// CheckChoose checks a choice rule ("", ChooseBest or Choose1SE) against
// the scheme and measure: Choose1SE needs HasSE.
func CheckChoose(choose string, sc Scheme, meas measure.Measure) error {
	switch choose {
	case "", ChooseBest:
		return nil
	case Choose1SE:
		if !HasSE(sc, meas) {
			return fmt.Errorf("%w: the one-standard-error rule needs the spread of per-fold values: a scheme of folds, or leave-one-out with mse or mae, not %s with %s", ErrNoSE, sc.Name, meas.Name)
		}
		return nil
	}
	return fmt.Errorf("%w: choice rule %q: want best or 1se", ErrScheme, choose)
}

// perRowLoss returns the per-row loss of a measure that is the mean of one
// over the rows (and outputs) — mse: (y − p)², mae: |y − p| — and nil for
// every other measure.
func perRowLoss(meas measure.Measure) func(y, p float64) float64 {
	switch meas.Name {
	case "mse":
		return func(y, p float64) float64 { return (y - p) * (y - p) }
	case "mae":
		return func(y, p float64) float64 { return math.Abs(y - p) }
	}
	return nil
}

// foldValues returns the measure on each fold's predictions alone (ties as
// in score, with the predictions' tolerance), in fold order, leaving out
// the folds on which it fails (undefined, e.g. AUC on a one-class fold).
// Each fold's rows are gathered in increasing order: O(Σ|F| log|F| · t)
// plus the measure's on each fold.
func (c *cvPredictions) foldValues(meas measure.Measure, y *mat.Dense, q []int, folds [][]int) []float64 {
	_, t := y.Dims()
	out := make([]float64, 0, len(folds))
	for _, f := range folds {
		rows := slices.Clone(f)
		slices.Sort(rows)
		ys, ps := mat.NewDense(len(rows), t, nil), mat.NewDense(len(rows), t, nil)
		var qs []int
		for k, i := range rows {
			ys.SetRow(k, y.RawRowView(i))
			ps.SetRow(k, c.p.RawRowView(i))
			if q != nil {
				qs = append(qs, q[i])
			}
		}
		fc := &cvPredictions{p: ps, tol: c.tol}
		if v, _, err := fc.score(meas, ys, qs); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// rowValues returns, for a measure with a per-row loss (perRowLoss), each
// covered row's loss averaged over the outputs, in row order — their mean
// is the measure's value on the pooled predictions; nil for other
// measures. O(m·t).
func (c *cvPredictions) rowValues(meas measure.Measure, y *mat.Dense) []float64 {
	loss := perRowLoss(meas)
	if loss == nil {
		return nil
	}
	m, t := y.Dims()
	out := make([]float64, 0, m)
	for i := 0; i < m; i++ {
		if c.covered != nil && !c.covered[i] {
			continue
		}
		yi, pi := y.RawRowView(i), c.p.RawRowView(i)
		s := 0.0
		for j := range yi {
			s += loss(yi[j], pi[j])
		}
		out = append(out, s/float64(t))
	}
	return out
}

// spreadValues returns the values whose spread gives a point its standard
// error: the folds' values (Folds) or the rows' losses (LOO with a per-row
// loss); nil otherwise.
func (c *cvPredictions) spreadValues(meas measure.Measure, y *mat.Dense, q []int, sc Scheme, folds [][]int) []float64 {
	switch sc.Kind {
	case Folds:
		return c.foldValues(meas, y, q, folds)
	case LOO:
		return c.rowValues(meas, y)
	}
	return nil
}

// setSpread records on the point the mean of the n values, their standard
// error sd/√n (sd with the n − 1 denominator) and n; with fewer than two
// values the point has no standard error (NFolds < 2). O(n).
func (pt *Point) setSpread(values []float64) {
	n := len(values)
	pt.NFolds = n
	pt.FoldMean, pt.SE = 0, 0
	if n < 2 {
		return
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	mean := sum / float64(n)
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	pt.FoldMean, pt.SE = mean, math.Sqrt(ss/float64(n-1)/float64(n))
}

// OneSE applies the one-standard-error rule to a curve whose points carry
// standard errors (Select on a scheme with HasSE): b, the point of the
// best fold mean (ties: the larger λ), sets the threshold FoldMean_b + SE_b
// (for a measure where higher is better, FoldMean_b − SE_b), and the rule
// returns the index of the largest λ whose fold mean is within it (at most
// the threshold; at least, when higher is better) — the most regularized
// model no worse than the best by more than its standard error, as
// glmnet's lambda.1se (Friedman, Hastie & Tibshirani 2010). It compares
// fold means, as glmnet's cvm and scikit-learn's mean_test_score, not the
// pooled values of the default --fold-score (for mse on folds of equal
// size they are the same). A point without a standard error is an error
// (ErrNoSE). O(len(curve)).
func OneSE(curve []Point, meas measure.Measure) (int, error) {
	b := -1
	for n, pt := range curve {
		if pt.NFolds < 2 {
			return 0, fmt.Errorf("%w: λ = %g has %d per-fold value(s), the rule needs 2", ErrNoSE, pt.Lambda, pt.NFolds)
		}
		if b < 0 || meas.Better(pt.FoldMean, curve[b].FoldMean) || (pt.FoldMean == curve[b].FoldMean && pt.Lambda > curve[b].Lambda) {
			b = n
		}
	}
	if b < 0 {
		return 0, fmt.Errorf("%w: an empty curve", ErrNoSE)
	}
	threshold := curve[b].FoldMean + curve[b].SE
	if meas.HigherIsBetter {
		threshold = curve[b].FoldMean - curve[b].SE
	}
	chosen := b
	for n, pt := range curve {
		within := pt.FoldMean <= threshold
		if meas.HigherIsBetter {
			within = pt.FoldMean >= threshold
		}
		if within && pt.Lambda > curve[chosen].Lambda {
			chosen = n
		}
	}
	return chosen, nil
}
