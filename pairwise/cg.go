package pairwise

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// KronCG is Kronecker RLS on any set of n observed pairs (incomplete data):
// the dual coefficients α of the observed pairs solve
//
//	(𝕂_SS + λI) α = y,   𝕂_SS[p, p'] = K[r_p, r_p'] G[c_p, c_p'],
//
// by conjugate gradients, and f(u, v) = Σ_p α_p k(u, u_{r_p}) g(v, v_{c_p}).
// The n×n matrix 𝕂_SS is never formed: its product with a vector α is the
// generalized (sampled) vec trick of Airola & Pahikkala (2018),
//
//	(𝕂_SS α)_p = (K B G)_{r_p c_p},  B = Σ_p α_p e_{r_p} e_{c_p}ᵀ,
//
// computed as T = B G (O(n·q)), then one dot product of a row of K with a
// column of T per pair (O(n·m)): O(n·(m + q) + m·q) per iteration and O(m·q)
// memory besides the two kernel matrices. On a homogeneous network the
// observations are the pairs in both orientations (see Symmetry).
type KronCG struct {
	problem
	byRow [][]int // observation indices of each row object
}

// FitKronCG prepares conjugate-gradient training on the labelled pairs
// (complete or not): the two kernel matrices only, no factorization. O(n).
func FitKronCG(rows, cols *Side, pairs []Pair, y []float64, opt Options) (*KronCG, error) {
	pr, err := newProblem(rows, cols, pairs, y, opt)
	if err != nil {
		return nil, err
	}
	k := &KronCG{problem: pr, byRow: make([][]int, pr.rows.Len())}
	for i, p := range pr.lab.obs {
		k.byRow[p.Row] = append(k.byRow[p.Row], i)
	}
	return k, nil
}

// Complete reports whether every (row, column) pair has a label (then
// FitKron gives the closed form and every cross-validation shortcut).
func (k *KronCG) Complete() bool { return k.lab.complete }

// Pairs returns the labelled pairs as given (shared; do not modify).
func (k *KronCG) Pairs() []Pair { return k.lab.given }

// Observations returns the number n of observed pairs trained on (the pairs
// given, and on a homogeneous network their mirrors).
func (k *KronCG) Observations() int { return len(k.lab.obs) }

// Validation is a held-out set of labelled pairs of the training objects,
// for early stopping.
type Validation struct {
	Pairs  []Pair
	Labels []float64
}

// CGOptions tune KronCG.Solve.
type CGOptions struct {
	// Tol is the relative residual ‖y − (𝕂_SS + λI)α‖/‖y‖ at which to stop
	// (default 1e-10: on small problems the predictions then agree with a
	// direct solve to 1e-8 relative). The residual bounds the error of the
	// training predictions: ‖Δ(𝕂α)‖ ≤ ‖residual‖.
	Tol float64
	// MaxIter caps the iterations (default 1000).
	MaxIter int
	// Validation, when set, is scored (mean squared error) after every
	// iteration; the iterate with the lowest error is returned, and the
	// iteration stops when Patience iterations in a row brought no improvement.
	Validation *Validation
	// Patience defaults to 30: conjugate gradients can leave the validation
	// error flat for tens of iterations before it falls again.
	Patience int
	// Progress, when set, is told each iteration and its relative residual.
	Progress func(iter int, residual float64)
}

// CGResult is Kronecker RLS at one λ trained by conjugate gradients.
type CGResult struct {
	k      *KronCG
	Lambda float64
	// Coef holds α, one coefficient per observed pair (see KronCG.Observations).
	Coef []float64
	// Iterations run, whether Tol was reached, and the final relative
	// residual, recomputed from the returned α.
	Iterations int
	Converged  bool
	Residual   float64
	// EarlyStopped says the validation error stopped improving before Tol was
	// reached; BestIteration is the iteration returned, ValidationMSE its error.
	EarlyStopped  bool
	BestIteration int
	ValidationMSE float64
}

// Solve runs conjugate gradients at λ from α = 0. Cost per iteration
// O(n·(m + q) + m·q) (plus O(v·m + m·q) with v validation pairs). Not
// converging within MaxIter is not an error: see CGResult.Converged.
func (k *KronCG) Solve(lambda float64, opt CGOptions) (*CGResult, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-10
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = 1000
	}
	if opt.Patience == 0 {
		opt.Patience = 30
	}
	if !(opt.Tol > 0) || opt.MaxIter < 1 || opt.Patience < 1 {
		return nil, fmt.Errorf("pairwise: %w: conjugate gradients need a tolerance > 0 and at least one iteration", learnErrShape)
	}
	var val *validator
	if opt.Validation != nil {
		var err error
		if val, err = k.newValidator(opt.Validation); err != nil {
			return nil, err
		}
	}
	n := len(k.lab.obs)
	m, q := k.lab.m, k.lab.q
	y := k.lab.obsY
	ny := math.Sqrt(dot(y, y))
	res := &CGResult{k: k, Lambda: lambda, Coef: make([]float64, n)}
	if ny == 0 {
		res.Converged = true
		return res, nil
	}
	w := newVecWork(m, q)
	x := res.Coef
	r := append([]float64(nil), y...)
	p := append([]float64(nil), y...)
	ap := make([]float64, n)
	rs := dot(r, r)
	var tx, best *mat.Dense // (B(α)G)ᵀ, q×m: the validation predictions' state
	var bestX []float64
	if val != nil {
		tx = mat.NewDense(q, m, nil)
		best = mat.NewDense(q, m, nil)
		res.ValidationMSE = val.mse(tx)
		bestX = make([]float64, n)
	}
	stall := 0
	for it := 1; it <= opt.MaxIter; it++ {
		k.mulK(p, ap, w)
		for i := range ap {
			ap[i] += lambda * p[i]
		}
		pap := dot(p, ap)
		if !(pap > 0) {
			return nil, fmt.Errorf("pairwise: %w: pᵀ(𝕂 + λI)p = %g at iteration %d", learn.ErrIndefinite, pap, it)
		}
		a := rs / pap
		for i := range x {
			x[i] += a * p[i]
			r[i] -= a * ap[i]
		}
		res.Iterations = it
		rsNew := dot(r, r)
		rel := math.Sqrt(rsNew) / ny
		if opt.Progress != nil {
			opt.Progress(it, rel)
		}
		if val != nil {
			addScaled(tx, w.tt, a)
			if v := val.mse(tx); v < res.ValidationMSE {
				res.ValidationMSE, res.BestIteration, stall = v, it, 0
				copy(bestX, x)
				best.Copy(tx)
			} else if stall++; stall >= opt.Patience {
				res.EarlyStopped = true
				break
			}
		}
		if rel <= opt.Tol {
			res.Converged = true
			break
		}
		beta := rsNew / rs
		rs = rsNew
		for i := range p {
			p[i] = r[i] + beta*p[i]
		}
	}
	if val != nil && res.BestIteration < res.Iterations {
		copy(x, bestX)
		res.Converged = false
	}
	if val == nil {
		res.BestIteration = res.Iterations
	}
	// the true residual of the returned α
	k.mulK(x, ap, w)
	s := 0.0
	for i := range ap {
		d := y[i] - ap[i] - lambda*x[i]
		s += d * d
	}
	res.Residual = math.Sqrt(s) / ny
	return res, nil
}

// vecWork holds the m×q and q×m work matrices of the vec trick.
type vecWork struct {
	t, tt *mat.Dense
}

func newVecWork(m, q int) *vecWork {
	return &vecWork{t: mat.NewDense(m, q, nil), tt: mat.NewDense(q, m, nil)}
}

// mulK sets out = 𝕂_SS α by the sampled vec trick, leaving (B(α) G)ᵀ in w.tt.
func (k *KronCG) mulK(alpha, out []float64, w *vecWork) {
	g, km := k.cols.k, k.rows.k
	obs := k.lab.obs
	m, q := k.lab.m, k.lab.q
	parallel(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := w.t.RawRowView(i)
			for j := range row {
				row[j] = 0
			}
			for _, p := range k.byRow[i] {
				a := alpha[p]
				if a == 0 {
					continue
				}
				for j, v := range g.RawRowView(obs[p].Col) {
					row[j] += a * v
				}
			}
		}
	})
	parallel(q, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			dst := w.tt.RawRowView(j)
			for i := 0; i < m; i++ {
				dst[i] = w.t.At(i, j)
			}
		}
	})
	parallel(len(obs), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			out[p] = dot(km.RawRowView(obs[p].Row), w.tt.RawRowView(obs[p].Col))
		}
	})
}

// validator scores validation pairs from (B(α)G)ᵀ: f(u, v) = K[u,:]·T[:, v].
type validator struct {
	k     *KronCG
	pairs []Pair
	y     []float64
}

func (k *KronCG) newValidator(v *Validation) (*validator, error) {
	if len(v.Pairs) == 0 || len(v.Pairs) != len(v.Labels) {
		return nil, fmt.Errorf("pairwise: %w: %d validation pairs, %d labels", learnErrShape, len(v.Pairs), len(v.Labels))
	}
	for i, p := range v.Pairs {
		if p.Row < 0 || p.Row >= k.lab.m || p.Col < 0 || p.Col >= k.lab.q {
			return nil, fmt.Errorf("%w: validation pair %d (%d, %d) outside %d rows × %d columns", ErrPair, i, p.Row, p.Col, k.lab.m, k.lab.q)
		}
		if math.IsNaN(v.Labels[i]) || math.IsInf(v.Labels[i], 0) {
			return nil, fmt.Errorf("pairwise: %w: validation label %d is %v", learnErrShape, i, v.Labels[i])
		}
	}
	return &validator{k: k, pairs: v.Pairs, y: v.Labels}, nil
}

func (v *validator) mse(tt *mat.Dense) float64 {
	km := v.k.rows.k
	s := 0.0
	for i, p := range v.pairs {
		d := v.y[i] - dot(km.RawRowView(p.Row), tt.RawRowView(p.Col))
		s += d * d
	}
	return s / float64(len(v.pairs))
}

// Fitted returns the training predictions (𝕂_SS α) at the pairs as given.
// O(n·(m + q) + m·q).
func (r *CGResult) Fitted() []float64 {
	k := r.k
	out := make([]float64, len(k.lab.obs))
	k.mulK(r.Coef, out, newVecWork(k.lab.m, k.lab.q))
	at := make(map[Pair]float64, len(out))
	for i, p := range k.lab.obs {
		at[p] = out[i]
	}
	f := make([]float64, len(k.lab.given))
	for i, p := range k.lab.given {
		f[i] = at[p]
	}
	return f
}

// Coefficients returns A (m×q), zero outside the observed pairs, with
// f(u, v) = k(u)ᵀ A g(v).
func (r *CGResult) Coefficients() *mat.Dense {
	a := mat.NewDense(r.k.lab.m, r.k.lab.q, nil)
	for i, p := range r.k.lab.obs {
		a.Set(p.Row, p.Col, r.Coef[i])
	}
	return a
}

// PairModel returns the model as a pairwise predictor whose coefficients are
// the observed pairs' (model.PairEntry).
func (r *CGResult) PairModel() *model.PairPredictor {
	k := r.k
	p := pairModel(learn.KronRLS, k.rows, k.cols, k.lab.sym, r.Lambda, 0, nil)
	p.A = nil
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

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// addScaled sets A += s·B.
func addScaled(a, b *mat.Dense, s float64) {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	for i := range ra.Data {
		ra.Data[i] += s * rb.Data[i]
	}
}

// parallel runs f over [0, n) in contiguous chunks, one per CPU.
func parallel(n int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p <= 1 || n < 64 {
		f(0, n)
		return
	}
	chunk := (n + p - 1) / p
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(n, lo+chunk))
	}
	wg.Wait()
}
