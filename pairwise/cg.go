package pairwise

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/krylov"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/progress"
)

// KronCG is Kronecker RLS on any set of n observed pairs (incomplete data):
// the dual coefficients α of the observed pairs solve
//
//	(𝕂_SS + λI) α = y,   𝕂_SS[p, p'] = K[r_p, r_p'] G[c_p, c_p'],
//
// by conjugate gradients (Hestenes & Stiefel 1952; the module's one loop,
// internal/krylov, shared with package cg), and
// f(u, v) = Σ_p α_p k(u, u_{r_p}) g(v, v_{c_p}).
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
	// Tol is the relative residual ‖y − (𝕂_SS + λI)α‖/‖y‖ at which to stop,
	// as updated by the conjugate-gradient recurrence (default
	// krylov.DefaultTol = 1e-10, as in package cg: on small problems the
	// predictions then agree with a direct solve to 1e-8 relative). The
	// residual bounds the error of the training predictions:
	// ‖Δ(𝕂α)‖ ≤ ‖residual‖.
	Tol float64
	// MaxIter caps the iterations (default krylov.DefaultMaxIter = 1000).
	MaxIter int
	// Validation, when set, is scored (mean squared error) after every
	// iteration; the iterate with the lowest error is returned, and the
	// iteration stops when Patience iterations in a row brought no improvement.
	Validation *Validation
	// Patience defaults to 30: conjugate gradients can leave the validation
	// error flat for tens of iterations before it falls again.
	Patience int
	// Progress, when set, is told each iteration of MaxIter, its relative
	// residual in the event's Detail
	// (through the iteration's krylov.Recorder, before the validation).
	Progress progress.Observer
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

// Solve runs conjugate gradients at λ from α = 0 until the relative residual
// is at most Tol, MaxIter iterations, or the validation patience runs out.
// Cost per iteration O(n·(m + q) + m·q) (plus O(v·m + m·q) with v validation
// pairs), and one more product for the returned α's residual. Not converging
// within MaxIter is not an error: see CGResult.Converged. A step with
// pᵀ(𝕂_SS + λI)p ≤ 0 (an indefinite kernel) is an error wrapping
// learn.ErrIndefinite.
func (k *KronCG) Solve(lambda float64, opt CGOptions) (*CGResult, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	if opt.Tol == 0 {
		opt.Tol = krylov.DefaultTol
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = krylov.DefaultMaxIter
	}
	if opt.Patience == 0 {
		opt.Patience = 30
	}
	if !(opt.Tol > 0) || math.IsInf(opt.Tol, 1) || opt.MaxIter < 1 || opt.Patience < 1 {
		return nil, fmt.Errorf("pairwise: %w: conjugate gradients need a finite tolerance > 0 and at least one iteration", learnErrShape)
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
	w := newVecWork(m, q)
	res := &CGResult{k: k, Lambda: lambda, Coef: make([]float64, n)}
	x := res.Coef
	a := krylov.OperatorFunc(func(dst, v []float64) {
		k.mulK(v, dst, w)
		for i := range dst {
			dst[i] += lambda * v[i]
		}
	})
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = krylov.DefaultMaxIter
	}
	rec := &cgRecorder{progress: opt.Progress, val: val, w: w, patience: opt.Patience, maxIter: maxIter}
	var r krylov.Recorder
	if val != nil || opt.Progress != nil {
		r = rec
	}
	kr, err := krylov.Solve(a, y, x, krylov.Settings{Tol: opt.Tol, MaxIter: opt.MaxIter}, r)
	if errors.Is(err, krylov.ErrIndefinite) {
		return nil, fmt.Errorf("pairwise: %w: %w", learn.ErrIndefinite, err)
	}
	if err != nil {
		return nil, fmt.Errorf("pairwise: conjugate gradients: %w", err)
	}
	res.Iterations, res.Converged, res.BestIteration = kr.Iterations, kr.Converged, kr.Iterations
	if val != nil {
		res.EarlyStopped, res.BestIteration, res.ValidationMSE = kr.Stopped, rec.bestIt, rec.mse
		if rec.bestIt < kr.Iterations {
			copy(x, rec.bestX)
			res.Converged = false
		}
	}
	// the true residual of the returned α
	if ny := math.Sqrt(dot(y, y)); ny > 0 {
		ap := make([]float64, n)
		k.mulK(x, ap, w)
		s := 0.0
		for i := range ap {
			d := y[i] - ap[i] - lambda*x[i]
			s += d * d
		}
		res.Residual = math.Sqrt(s) / ny
	}
	return res, nil
}

// cgRecorder is KronCG's krylov.Recorder: it reports progress and, with a
// validation set, tracks the validation predictions incrementally, keeps the
// best iterate and stops (krylov.ErrStop) after patience iterations in a row
// without a strict improvement of the validation mean squared error. The
// predictions' state is tx = (B(α)G)ᵀ (q×m); since the operator has just been
// applied to the direction p, leaving (B(p)G)ᵀ in w.tt, the step α_k·p
// updates it in O(m·q), and the error costs O(v·m) for v validation pairs.
type cgRecorder struct {
	progress progress.Observer
	maxIter  int
	val      *validator
	w        *vecWork
	patience int

	tx     *mat.Dense // (B(α)G)ᵀ of the current iterate
	bestX  []float64  // the best iterate
	mse    float64    // its validation error
	bestIt int        // its iteration (0: α = 0)
	stall  int
}

// Init starts from α = 0: tx = 0, the best iterate is α = 0 with the
// validation error of predicting 0.
func (c *cgRecorder) Init() error {
	if c.val == nil {
		return nil
	}
	m, q := c.val.k.lab.m, c.val.k.lab.q
	c.tx = mat.NewDense(q, m, nil)
	c.bestX = make([]float64, len(c.val.k.lab.obs))
	c.mse, c.bestIt, c.stall = c.val.mse(c.tx), 0, 0
	return nil
}

// Record reports progress, then scores the iterate.
func (c *cgRecorder) Record(it krylov.Iteration) error {
	if c.progress != nil {
		c.progress(progress.Event{Stage: "conjugate gradients", Detail: fmt.Sprintf("residual %.2g", it.Residual), Done: int64(it.K), Total: int64(c.maxIter)})
	}
	if c.val == nil {
		return nil
	}
	addScaled(c.tx, c.w.tt, it.Step)
	if v := c.val.mse(c.tx); v < c.mse {
		c.mse, c.bestIt, c.stall = v, it.K, 0
		copy(c.bestX, it.X)
	} else if c.stall++; c.stall >= c.patience {
		return krylov.ErrStop
	}
	return nil
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
	train := make(map[Pair]bool, len(k.lab.obs))
	for _, p := range k.lab.obs {
		train[p] = true
	}
	for i, p := range v.Pairs {
		if p.Row < 0 || p.Row >= k.lab.m || p.Col < 0 || p.Col >= k.lab.q {
			return nil, fmt.Errorf("%w: validation pair %d (%d, %d) outside %d rows × %d columns", ErrPair, i, p.Row, p.Col, k.lab.m, k.lab.q)
		}
		if train[p] {
			return nil, fmt.Errorf("%w: validation pair %d (%d, %d) is a training observation (or its mirror): early stopping on training data measures nothing", ErrPair, i, p.Row, p.Col)
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
