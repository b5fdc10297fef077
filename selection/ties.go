package selection

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// ErrNonFinite is returned when a cross-validation prediction is NaN or ±Inf:
// an overflow (features or labels too large for the shortcut's arithmetic), never
// a row to drop silently.
var ErrNonFinite = errors.New("selection: non-finite cross-validation prediction")

// tieFactor is the constant of the rounding bound ε·m·κ·scale below which CV
// predictions count as ties; the 8 covers the small constants of the
// shortcuts' error analyses (a product, a division, one refinement).
const tieFactor = 8 * 2.220446049250313e-16

// cvPredictions are the CV predictions at one λ, with the rows they cover and
// the solution's conditioning.
type cvPredictions struct {
	p       *mat.Dense
	covered []bool  // nil: every row
	kappa   float64 // learn.Conditioner's value; 0: computed without shortcuts (no ties)
}

// conditioning returns the solution's learn.Conditioner value (+Inf when it
// is not a number ≥ 1), or 1 for a solution that does not say.
func conditioning(s learn.Solution) float64 {
	if c, ok := s.(learn.Conditioner); ok {
		if k := c.Conditioning(); k >= 1 && !math.IsInf(k, 0) {
			return k
		}
		return math.Inf(1)
	}
	return 1
}

// check refuses a non-finite prediction in a covered row.
func (c *cvPredictions) check() error {
	m, _ := c.p.Dims()
	for i := 0; i < m; i++ {
		if c.covered != nil && !c.covered[i] {
			continue
		}
		for j, v := range c.p.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: row %d, output %d is %v (rescale the features, e.g. standardize them)", ErrNonFinite, i, j, v)
			}
		}
	}
	return nil
}

// rows lists the covered rows.
func (c *cvPredictions) rows() []int {
	m, _ := c.p.Dims()
	var out []int
	for i := 0; i < m; i++ {
		if c.covered == nil || c.covered[i] {
			out = append(out, i)
		}
	}
	return out
}

// score scores the covered rows. For an ordinal measure, predictions of an
// output that are closer than the rounding bound tieTolerance are snapped
// together first, so they count as ties. indistinct reports that every
// output's predictions lie within that bound of each other: the CV cannot tell
// the rows apart.
func (c *cvPredictions) score(meas measure.Measure, y *mat.Dense, q []int) (v float64, indistinct bool, err error) {
	if err := c.check(); err != nil {
		return 0, false, err
	}
	rows := c.rows()
	_, t := y.Dims()
	ys, ps := mat.NewDense(len(rows), t, nil), mat.NewDense(len(rows), t, nil)
	var qs []int
	for n, i := range rows {
		ys.SetRow(n, y.RawRowView(i))
		ps.SetRow(n, c.p.RawRowView(i))
		if q != nil {
			qs = append(qs, q[i])
		}
	}
	indistinct = c.kappa > 0 && len(rows) > 1
	for j := 0; j < t; j++ {
		col := mat.Col(nil, j, ps)
		tol := tieTolerance(c.kappa, len(rows), mat.Col(nil, j, ys), col)
		snapped, groups := snap(col, tol)
		if groups > 1 {
			indistinct = false
		}
		if meas.Ordinal {
			ps.SetCol(j, snapped)
		}
	}
	v, err = meas.Score(ys, ps, qs)
	return v, indistinct, err
}

// tieTolerance is the rounding bound ε·m·κ·(max|y| + max|p|), times a small
// constant, of predictions p of labels y computed by a solution of
// conditioning κ; 0 for κ = 0 (predictions computed directly).
func tieTolerance(kappa float64, m int, y, p []float64) float64 {
	if kappa == 0 {
		return 0
	}
	scale := 0.0
	for _, v := range y {
		scale = math.Max(scale, math.Abs(v))
	}
	pmax := 0.0
	for _, v := range p {
		pmax = math.Max(pmax, math.Abs(v))
	}
	return tieFactor * float64(max(m, 1)) * kappa * (scale + pmax)
}

// snap returns p with every run of values whose consecutive gaps (in sorted
// order) are at most tol replaced by the run's smallest value, and the number
// of runs. O(m log m).
func snap(p []float64, tol float64) ([]float64, int) {
	out := slices.Clone(p)
	if len(p) == 0 {
		return out, 0
	}
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(p[a], p[b]) })
	groups, first, prev := 1, p[idx[0]], p[idx[0]]
	for _, i := range idx {
		if p[i]-prev > tol {
			groups++
			first = p[i]
		}
		prev = p[i]
		out[i] = first
	}
	return out, groups
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
