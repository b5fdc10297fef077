package pairwise

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/krylov"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
)

// KronSVMName is the learner name of the Kronecker support vector machine
// (--learner kronsvm, model files).
const KronSVMName learn.Name = "kronsvm"

// Defaults of SVMOptions: RLScore's KronSVM runs at most 100 Newton steps;
// each step's linear system is solved by conjugate gradients to the relative
// residual krylov.DefaultTol (1e-10) within krylov.DefaultMaxIter (1000)
// iterations.
const DefaultNewtonSteps = 100

// ErrLabel is returned for a label of a support vector machine that is not
// −1 or +1.
var ErrLabel = errors.New("pairwise: a support vector machine's labels are −1 and +1")

// KronSVM is the Kronecker-kernel support vector machine with the squared
// hinge loss (L2-SVM) on n observed pairs (h = 1…n, pair (r_h, c_h), label
// y_h ∈ {−1, +1}) of m row and q column objects — complete or not — the
// learner of RLScore's KronSVM (Airola & Pahikkala 2018, Sect. V). The dual
// form minimizes over the coefficients a ∈ ℝⁿ of the observed pairs
//
//	J(a) = ½ ( Σ_h max(0, 1 − y_h f_h)² + λ aᵀ𝕂a ),   f = 𝕂a,
//	𝕂[h, h'] = K[r_h, r_h'] · G[c_h, c_h'],
//
// and predicts f(u, v) = Σ_h a_h k(u, u_{r_h}) g(v, v_{c_h}). It is trained
// by Newton's method (truncated: the linear systems solved by conjugate
// gradients), every product with 𝕂 by the generalized vec trick
// (sampledKron). With S the pairs inside the margin (y_h f_h < 1), the
// gradient is 𝕂(D_S(f − y) + λa) and the Hessian 𝕂(D_S𝕂 + λI); the full
// Newton step a ← a − (D_S𝕂 + λI)⁻¹(D_S(f − y) + λa) — RLScore's step —
// is, solved exactly,
//
//	a_h = 0 (h ∉ S),   (𝕂_SS + λI) a_S = y_S,
//
// Kronecker RLS on the pairs inside the margin (y_h² = 1). Newton stops when
// a step leaves S unchanged: then D_S(f − y) + λa = 0, the optimality
// condition, holds to the tolerance of the last solve. Each step costs its
// conjugate-gradient iterations, O(|S|·(m + q) + m·q) each (see
// sampledKron), warm-started from the previous a_S.
type KronSVM struct {
	problem
}

// SVMOptions tune KronSVM.Solve and KronSVMLinear.Solve.
type SVMOptions struct {
	// NewtonSteps caps the Newton steps (default DefaultNewtonSteps = 100,
	// RLScore's maxiter).
	NewtonSteps int
	// Tol is the relative residual at which each step's conjugate gradients
	// stop, relative to ‖y_S‖ (dual) or ‖Φ_Sᵀy_S‖ (primal) (default
	// krylov.DefaultTol = 1e-10); MaxIter caps their iterations per step
	// (default krylov.DefaultMaxIter = 1000).
	Tol     float64
	MaxIter int
	// Progress, when set, is told each Newton step of NewtonSteps, with the
	// number of pairs inside the margin in its Detail.
	Progress progress.Observer
}

func (o *SVMOptions) defaults() error {
	if o.NewtonSteps == 0 {
		o.NewtonSteps = DefaultNewtonSteps
	}
	if o.Tol == 0 {
		o.Tol = krylov.DefaultTol
	}
	if o.MaxIter == 0 {
		o.MaxIter = krylov.DefaultMaxIter
	}
	if o.NewtonSteps < 1 || o.MaxIter < 1 || !(o.Tol > 0) || math.IsInf(o.Tol, 1) {
		return fmt.Errorf("pairwise: %w: KronSVM needs at least one Newton step, at least one conjugate-gradient iteration and a finite tolerance > 0 (got %d, %d, %v)",
			learnErrShape, o.NewtonSteps, o.MaxIter, o.Tol)
	}
	return nil
}

// SVMResult is the support vector machine at one λ.
type SVMResult struct {
	k      *KronSVM
	lin    *KronSVMLinear
	Lambda float64
	// Coef holds the dual coefficients a, one per observed pair (zero for
	// the pairs outside the margin). For the primal form they are
	// a_S = (y_S − f_S)/λ, which give the same model.
	Coef []float64
	// W is the primal form's d×e weight matrix, f(x, z) = xᵀWz (nil for
	// the dual form).
	W *mat.Dense
	// Objective is J at the returned solution.
	Objective float64
	// NewtonSteps and CGIterations count the work done; SupportVectors is
	// |S|, the pairs inside the margin at the solution.
	NewtonSteps, CGIterations, SupportVectors int
	// Converged: the last Newton step left S unchanged and its conjugate
	// gradients reached Tol, or the optimality residual Residual is at most
	// Tol: ‖D_S(f − y) + λa‖/‖y‖ (dual), ‖Φ_Sᵀ(f_S − y_S) + λw‖/‖Φ_Sᵀy_S‖
	// (primal), S the margin set at the solution.
	Converged bool
	Residual  float64
}

// FitKronSVM prepares the dual support vector machine on the labelled pairs
// of two sets of objects (a homogeneous network is refused): the two kernel
// matrices of the sides, labels −1 or +1 (ErrLabel names the first other).
// O(n).
func FitKronSVM(rows, cols *Side, pairs []Pair, y []float64) (*KronSVM, error) {
	if rows == nil || cols == nil {
		return nil, fmt.Errorf("pairwise: %w: KronSVM needs row and column objects (a homogeneous network is not taken)", learnErrShape)
	}
	if err := checkSVMLabels(pairs, y); err != nil {
		return nil, err
	}
	pr, err := newProblem(rows, cols, pairs, y, Options{})
	if err != nil {
		return nil, err
	}
	return &KronSVM{problem: pr}, nil
}

// checkSVMLabels refuses a label other than −1 and +1, naming its pair.
func checkSVMLabels(pairs []Pair, y []float64) error {
	for i, v := range y {
		if v != 1 && v != -1 {
			p := Pair{-1, -1}
			if i < len(pairs) {
				p = pairs[i]
			}
			return fmt.Errorf("%w: pair %d (%d, %d) has label %v", ErrLabel, i, p.Row, p.Col, v)
		}
	}
	return nil
}

// Observations is n, the number of labelled pairs.
func (k *KronSVM) Observations() int { return len(k.lab.obs) }

// newtonStep is what a form's Newton step hands the shared iteration: the
// conjugate gradients' iterations and convergence, the change df = Φd of the
// predictions along the full step d to the new solution, and the
// regularizer's terms ⟨s, d⟩ and ⟨d, d⟩ (in the RKHS: aᵀ𝕂d = dᵀf and
// dᵀ𝕂d = dᵀdf for the dual, wᵀd and dᵀd for the primal).
type newtonStep struct {
	it     int
	ok     bool
	df     []float64
	c0, c2 float64
}

// newton runs the Newton iteration shared by both forms. predict(f) sets f
// from the initial solution; residual(sv, f) returns the norm of the
// optimality residual and of the right-hand side it is relative to;
// solve(sv, f) computes the Newton step on the pairs sv inside the margin
// (f the current predictions); take(t) moves the solution by t times it.
// Each step is followed by the exact line search along it (lineSearch),
// which keeps the objective decreasing — the full step alone, RLScore's
// iteration, can cycle between margin sets — and gives t = 1 whenever the
// full step stays in its piece of the objective, so that near the optimum
// the iteration is Newton's. It stops when a full step leaves the margin
// set unchanged after converged conjugate gradients (then the optimality
// condition holds to their tolerance), or when the residual is at most Tol
// times the right-hand side.
func newton(y []float64, lambda float64, opt SVMOptions, res *SVMResult, predict func(f []float64), residual func(sv []int, f []float64) (r, b float64),
	solve func(sv []int, f []float64, eta float64) (newtonStep, error), take func(t float64)) ([]float64, error) {
	n := len(y)
	f := make([]float64, n)
	predict(f)
	var prev, sv []int
	full := false
	for step := 0; ; step++ {
		sv = sv[:0]
		for h := range n {
			if y[h]*f[h] < 1 {
				sv = append(sv, h)
			}
		}
		res.SupportVectors = len(sv)
		if step > 0 {
			r, b := residual(sv, f)
			res.Residual = r / b
			if full && equalInts(sv, prev) || r <= opt.Tol*b {
				res.Converged = true
				return f, nil
			}
		}
		if step == opt.NewtonSteps {
			return f, nil
		}
		// the inexact Newton forcing term (Eisenstat & Walker 1996): the
		// step's conjugate gradients stop at the relative residual
		// η = ρ·min(0.1, ρ), ρ the current optimality residual, but not
		// below Tol — loose far from the optimum, superlinear near it, Tol
		// at the end, where the stopping rules need it
		eta := 0.01
		if step > 0 {
			eta = res.Residual * min(0.1, res.Residual)
		}
		eta = max(opt.Tol, eta)
		st, err := solve(sv, f, eta)
		res.CGIterations += st.it
		if err != nil {
			return nil, err
		}
		t := lineSearch(y, f, st.df, lambda, st.c0, st.c2)
		take(t)
		for h := range f {
			f[h] += t * st.df[h]
		}
		res.NewtonSteps, full = step+1, st.ok && eta == opt.Tol && t == 1
		prev = append(prev[:0], sv...)
		if opt.Progress != nil {
			opt.Progress(progress.Event{Stage: "Newton steps", Detail: fmt.Sprintf("%d pairs inside the margin, step %.3g", len(sv), t), Done: int64(step + 1), Total: int64(opt.NewtonSteps)})
		}
	}
}

// lineSearch returns the t ≥ 0 minimizing the convex piecewise quadratic
//
//	φ(t) = ½ Σ_h max(0, 1 − y_h(f_h + t·df_h))² + λ(t·c0 + ½t²·c2)
//
// (the objective along the step, up to a constant) exactly: φ' is
// piecewise linear and nondecreasing, with a breakpoint where a pair crosses
// the margin, t_h = (1 − y_h f_h)/(y_h df_h); the breakpoints are sorted and
// walked from t = 0 until φ' changes sign inside an interval (Keerthi &
// DeCoste 2006, JMLR, Sect. 3). When no pair crosses the margin on (0, 1]
// it returns 1 without a search: the full step is the minimizer of its
// piece (an exact root there would only echo rounding, and in directions
// of 𝕂's near-null space φ is flat). O(n log n).
func lineSearch(y, f, df []float64, lambda, c0, c2 float64) float64 {
	// φ'(t) = A + B t on an interval, from the pairs active there
	a, b := lambda*c0, lambda*c2
	type brk struct {
		t    float64
		u, v float64 // 1 − y f and y df
	}
	var brks []brk
	for h, yh := range y {
		u, v := 1-yh*f[h], yh*df[h]
		switch {
		case v == 0:
			if u > 0 {
				a, b = a-v*u, b+v*v
			}
		case u/v > 0: // crosses at t_h > 0
			if v < 0 { // inactive before, active after
				brks = append(brks, brk{u / v, u, v})
			} else { // active before, inactive after
				a, b = a-v*u, b+v*v
				brks = append(brks, brk{u / v, u, v})
			}
		default: // t_h ≤ 0: the same on (0, ∞)
			if v < 0 || (v > 0 && u > 0) {
				a, b = a-v*u, b+v*v
			}
		}
	}
	slices.SortFunc(brks, func(p, q brk) int { return cmp.Compare(p.t, q.t) })
	if len(brks) == 0 || brks[0].t > 1 {
		// the full step stays in the piece of the objective it was
		// computed on, whose minimizer it is (to the solve's tolerance):
		// Newton's step, as RLScore takes it. The warm-started conjugate
		// gradients lower that piece's quadratic, so φ(1) < φ(0).
		return 1
	}
	t, done := 0.0, false
	for _, k := range brks {
		if b > 0 && -a/b <= k.t {
			t, done = max(-a/b, t), true
			break
		}
		t = k.t
		if k.v < 0 { // becomes active
			a, b = a-k.v*k.u, b+k.v*k.v
		} else { // leaves
			a, b = a+k.v*k.u, b-k.v*k.v
		}
	}
	if !done && b > 0 {
		t = max(-a/b, t)
	}
	return t
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hingeSquared returns Σ_h max(0, 1 − y_h f_h)².
func hingeSquared(y, f []float64) float64 {
	s := 0.0
	for h, v := range y {
		if z := 1 - v*f[h]; z > 0 {
			s += z * z
		}
	}
	return s
}

// cgStep solves (A + λI) x = b on the pairs sv, warm-started at x: the
// correction δ of (A + λI)δ = b − (A + λI)x by conjugate gradients, to the
// relative residual tol·‖b‖ (so tol is relative to the system's right-hand
// side, not the correction's). ax holds A x on entry.
func cgStep(apply func(dst, v []float64), lambda float64, b, x, ax []float64, opt SVMOptions) (int, bool, error) {
	r := make([]float64, len(b))
	for i := range r {
		r[i] = b[i] - ax[i] - lambda*x[i]
	}
	nb, nr := math.Sqrt(dot(b, b)), math.Sqrt(dot(r, r))
	if nr <= opt.Tol*nb {
		return 0, true, nil
	}
	tol := opt.Tol * nb / nr // < 1: ‖δ-residual‖ ≤ tol·‖r‖ is ‖residual‖ ≤ Tol·‖b‖
	op := krylov.OperatorFunc(func(dst, v []float64) {
		apply(dst, v)
		for i := range dst {
			dst[i] += lambda * v[i]
		}
	})
	d := make([]float64, len(b))
	kr, err := krylov.Solve(op, r, d, krylov.Settings{Tol: tol, MaxIter: opt.MaxIter}, nil)
	if errors.Is(err, krylov.ErrIndefinite) {
		return kr.Iterations, false, fmt.Errorf("pairwise: %w: %w", learn.ErrIndefinite, err)
	}
	if err != nil {
		return kr.Iterations, false, fmt.Errorf("pairwise: KronSVM conjugate gradients: %w", err)
	}
	for i := range x {
		x[i] += d[i]
	}
	return kr.Iterations, kr.Converged, nil
}

// Solve trains the dual support vector machine at λ > 0 from a = 0 (see
// KronSVM for the iteration and its cost). Not converging within the
// Newton steps is not an error: see SVMResult.Converged.
func (k *KronSVM) Solve(lambda float64, opt SVMOptions) (*SVMResult, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	obs, y := k.lab.obs, k.lab.obsY
	n := len(obs)
	res := &SVMResult{k: k, Lambda: lambda, Coef: make([]float64, n)}
	a := res.Coef
	vk := newSampledKron(k.rows.k, k.cols.k)
	var svPairs []Pair
	var xs, ys, fs []float64
	d, full := make([]float64, n), make([]float64, n)
	var lastSV []int
	f, err := newton(y, lambda, opt, res,
		func(f []float64) { vk.mul(obs, a, obs, f) },
		func(sv []int, f []float64) (float64, float64) {
			// r = D_S(f − y) + λa, relative to ‖y‖
			r, j := 0.0, 0
			for h := range a {
				d := lambda * a[h]
				if j < len(sv) && sv[j] == h {
					d += f[h] - y[h]
					j++
				}
				r += d * d
			}
			return math.Sqrt(r), math.Sqrt(float64(n))
		},
		func(sv []int, f []float64, eta float64) (newtonStep, error) {
			o := opt
			o.Tol = eta
			svPairs, xs, ys, fs = svPairs[:0], xs[:0], ys[:0], fs[:0]
			lastSV = append(lastSV[:0], sv...)
			for _, h := range sv {
				svPairs, xs, ys, fs = append(svPairs, obs[h]), append(xs, a[h]), append(ys, y[h]), append(fs, f[h])
			}
			// f_S = 𝕂_SS a_S when a is zero outside S
			if !zeroOutside(a, sv) {
				vk.mul(svPairs, xs, svPairs, fs)
			}
			it, ok, err := cgStep(func(dst, v []float64) { vk.mul(svPairs, v, svPairs, dst) }, lambda, ys, xs, fs, o)
			if err != nil {
				return newtonStep{it: it}, err
			}
			// d = a_new − a; df = 𝕂a_new − f
			for h := range d {
				d[h] = -a[h]
			}
			for i, h := range sv {
				d[h] += xs[i]
			}
			vk.mul(svPairs, xs, obs, full)
			for h := range full {
				full[h] -= f[h]
			}
			return newtonStep{it: it, ok: ok, df: full, c0: dot(d, f), c2: dot(d, full)}, nil
		},
		func(t float64) {
			if t == 1 { // the new solution exactly: zero outside the margin
				clear(a)
				for i, h := range lastSV {
					a[h] = xs[i]
				}
				return
			}
			for h := range a {
				a[h] += t * d[h]
			}
		})
	if err != nil {
		return nil, err
	}
	// f was updated along the steps: recompute it for the objective
	vk.mul(obs, a, obs, f)
	res.Objective = 0.5 * (hingeSquared(y, f) + lambda*dot(a, f))
	return res, nil
}

// zeroOutside reports whether a is zero at every index not in the sorted sv.
func zeroOutside(a []float64, sv []int) bool {
	j := 0
	for h, v := range a {
		if j < len(sv) && sv[j] == h {
			j++
			continue
		}
		if v != 0 {
			return false
		}
	}
	return true
}

// Fitted returns the training predictions f = 𝕂a at the pairs as given.
// O(n·(m + q) + m·q).
func (r *SVMResult) Fitted() []float64 {
	if r.lin != nil {
		f := make([]float64, len(r.lin.pairs))
		r.lin.predict(r.W, r.lin.pairs, f)
		return f
	}
	k := r.k
	f := make([]float64, len(k.lab.obs))
	newSampledKron(k.rows.k, k.cols.k).mul(k.lab.obs, r.Coef, k.lab.obs, f)
	return f
}

// PairModel returns the dual model as a pairwise predictor whose
// coefficients are the nonzero a_h of the observed pairs (model.PairEntry):
// f(u, v) = Σ_h a_h k(u, u_{r_h}) g(v, v_{c_h}). The primal form has no
// sides (use W): nil.
func (r *SVMResult) PairModel() *model.PairPredictor {
	if r.k == nil {
		return nil
	}
	k := r.k
	p := pairModel(KronSVMName, k.rows, k.cols, Heterogeneous, r.Lambda, 0, nil)
	for i, o := range k.lab.obs {
		if r.Coef[i] != 0 {
			p.Entries = append(p.Entries, model.PairEntry{Row: o.Row, Col: o.Col, Value: r.Coef[i]})
		}
	}
	if len(p.Entries) == 0 {
		p.Entries = []model.PairEntry{{Row: k.lab.obs[0].Row, Col: k.lab.obs[0].Col}}
	}
	return p
}
