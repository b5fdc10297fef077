package greedy

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/measure"
)

// # Ties: the forward error of the criterion
//
// Predictions. Each path carries a twin (path.twin), the greedy form of
// package selection's learn.Perturber twin: the same selection on the labels
// Y·selection.TwinScale, whose every direction's pivot c = λ + vᵀA·v is moved
// up by its rounding error δ = (s+1)·ε·e_max (pivotShift; s+1 the directions
// after adding it, e_max bounded by that of the selected columns' Gram matrix
// plus ‖v‖², as factor.PerturbUp moves a factorization's eigenvalues by
// rank·ε·e_max). The twin shares the images u = A·v and g (no second pass
// over the data): its R, diag(A) and E are its own, O(m·t) per step. In exact
// arithmetic and without δ its CV predictions are TwinScale times the
// model's; selection.NoiseTolerance turns their difference into the tie
// tolerance of the predictions (16 times the largest, per output) — the
// rounding of the residual formulas, of the accumulated R, diag(A) and E, and
// the predictions' sensitivity to each pivot. Every step is scored with it,
// and so is every candidate when the measure is ordinal, through
// selection.ScoreWithin: predictions within the tolerance of each other are
// ties, and a model whose predictions all are is Indistinguishable.
//
// Values. Step.Tolerance bounds the forward error of Step.Value given that
// tolerance (valueTolerance): for a non-ordinal measure (mse, accuracy),
// which gets worse as any row's prediction moves away from its label, the
// largest change of the value when every prediction moves by its tolerance
// away from or towards its label — for mse 2·tol·mean|e| + tol², the bound
// of first-order error analysis — plus (n·t + 2)·ε·|value| for the
// rounding of the sums; for an ordinal measure, whose predictions within the
// tolerance are already ties and whose value is a ratio of counts, the
// rounding term alone.
//
// Choosing k and λ. Two values a and b tie when |a − b| ≤ τ_a + τ_b. A step
// that ties the previous step of its path gains nothing the criterion can
// see (Step.NoGain: a zero column, a duplicate the model already holds); it
// stays on the path — the next step builds on it — but the choice never
// stops there. Among the other steps the best value v* is found, and the
// choice is the step with the fewest features, then the largest λ, whose
// value ties v*.

// eps is the unit roundoff of float64 (2⁻⁵²).
const eps = 2.220446049250313e-16

// pivotShift is the twin's perturbation of a pivot c: (s+1)·ε·emax, for the
// (s+1)-th direction of a model whose Gram matrix's largest eigenvalue is at
// most emax.
func pivotShift(s int, emax float64) float64 {
	return float64(s+1) * eps * emax
}

// valueTolerance bounds the forward error of the value v of the CV
// predictions p (n×t) of the labels y when each prediction of output c is
// within tol[c] of its exact value (see the comment at the top of this
// file). Cost: two scorings of the measure, O(n·t) plus the measure's.
func valueTolerance(meas measure.Measure, y, p *mat.Dense, q []int, tol []float64, v float64) float64 {
	n, t := p.Dims()
	round := float64(n*t+2) * eps * math.Abs(v)
	if meas.Ordinal || tol == nil || math.IsNaN(v) {
		return round
	}
	away, toward := mat.NewDense(n, t, nil), mat.NewDense(n, t, nil)
	for i := 0; i < n; i++ {
		yr, pr, a, b := y.RawRowView(i), p.RawRowView(i), away.RawRowView(i), toward.RawRowView(i)
		for c, pv := range pr {
			d := tol[c]
			if pv < yr[c] {
				d = -d
			}
			a[c], b[c] = pv+d, pv-d
		}
	}
	worst := 0.0
	for _, pp := range []*mat.Dense{away, toward} {
		if w, err := meas.Score(y, pp, q); err == nil {
			worst = math.Max(worst, math.Abs(w-v))
		}
	}
	return worst + round
}

// ties reports whether two steps' values lie within the sum of their
// tolerances.
func ties(a, b Step) bool {
	return math.Abs(a.Value-b.Value) <= a.Tolerance+b.Tolerance
}

// choice returns the chosen point of the paths — the path index and k — by
// the rule at the top of this file: the fewest features, then the largest
// λ (then the first path), among the steps that tie the best value and do
// not merely tie their predecessor. ok is false when no step has a value.
func choice(paths []Path, meas measure.Measure) (best, k int, ok bool) {
	var star Step
	found := false
	for _, p := range paths {
		for _, s := range p.Steps {
			if !s.NoGain && !math.IsNaN(s.Value) && (!found || meas.Better(s.Value, star.Value)) {
				star, found = s, true
			}
		}
	}
	if !found {
		return 0, 0, false
	}
	best, k = -1, 0
	for l, p := range paths {
		for n, s := range p.Steps {
			if s.NoGain || math.IsNaN(s.Value) || !ties(s, star) {
				continue
			}
			if best < 0 || n+1 < k || (n+1 == k && p.Lambda > paths[best].Lambda) {
				best, k = l, n+1
			}
			break // the later steps of this path have more features
		}
	}
	return best, k, true
}
