package pairkernel

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/krylov"
	"github.com/rlskit/rlskit/learn"
)

// Options tune Fit.
type Options struct {
	// Tol is the relative residual ‖y − (K + λI)α‖/‖y‖ at which conjugate
	// gradients stop (0: krylov.DefaultTol = 1e-10). For a positive
	// semidefinite pairwise kernel K it bounds the errors of the result:
	// ‖Δα‖ ≤ ‖r‖/λ, the training predictions ‖Δ(Kα)‖ ≤ ‖r‖, and predictions
	// with a cross kernel matrix C, ‖Δ(Cα)‖ ≤ ‖C‖₂‖r‖/λ (Model.Residual is
	// the returned α's true ‖r‖/‖y‖).
	Tol float64
	// MaxIter caps the iterations (0: krylov.DefaultMaxIter = 1000).
	MaxIter int
}

// Model is pairwise regularized least squares with a pairwise kernel k:
// the dual coefficients α of the n training pairs solve
//
//	(K + λI) α = y,   K[p, p'] = k((d_p,t_p), (d_p',t_p')),
//
// and f(d, t) = Σ_p α_p k((d,t), (d_p,t_p)). K = Σ_s w_s (A_s ⊗ B_s)[S,S] is
// never formed (see Operator.MulVec).
type Model struct {
	// Terms are the pairwise kernel's terms over the caller's kernel list.
	Terms []Term
	// Train lists the training pairs, indices into the training objects.
	Train Pairs
	// Coef holds α, one coefficient per training pair.
	Coef   []float64
	Lambda float64
	// Iterations made, whether Tol was reached, and the true relative
	// residual ‖y − (K + λI)α‖/‖y‖ of the returned α.
	Iterations int
	Converged  bool
	Residual   float64
}

// Fit trains the model on the labelled pairs train (y[p] the label of pair
// p) with the pairwise kernel Σ terms over kernels (square matrices over
// the training objects; see Kind.Base for the named kernels) at λ > 0, by
// conjugate gradients from α = 0 (Hestenes & Stiefel 1952; internal/krylov).
// Cost per iteration one Operator.MulVec, O(n·(m + q)) per term, plus O(n);
// memory O(n) besides the kernels and one intermediate matrix. Not reaching
// Tol within MaxIter is not an error (Model.Converged); a kernel that is
// not positive semidefinite on the pairs (say negative weights) may be
// reported as an error wrapping learn.ErrIndefinite.
func Fit(kernels []*mat.Dense, terms []Term, train Pairs, y []float64, lambda float64, opt Options) (*Model, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairkernel: %w", err)
	}
	if train.Len() == 0 || len(y) != train.Len() {
		return nil, fmt.Errorf("%w: %d labels for %d training pairs", ErrShape, len(y), train.Len())
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("pairkernel: label %d is %v, not a finite number", i, v)
		}
	}
	op, err := NewOperator(kernels, terms, train, train)
	if err != nil {
		return nil, err
	}
	if opt.Tol == 0 {
		opt.Tol = krylov.DefaultTol
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = krylov.DefaultMaxIter
	}
	n := train.Len()
	m := &Model{Terms: terms, Train: train, Coef: make([]float64, n), Lambda: lambda}
	a := krylov.OperatorFunc(func(dst, v []float64) {
		op.MulVec(dst, v)
		for i := range dst {
			dst[i] += lambda * v[i]
		}
	})
	res, err := krylov.Solve(a, y, m.Coef, krylov.Settings{Tol: opt.Tol, MaxIter: opt.MaxIter}, nil)
	if errors.Is(err, krylov.ErrIndefinite) {
		return nil, fmt.Errorf("pairkernel: %w: %w", learn.ErrIndefinite, err)
	}
	if err != nil {
		return nil, fmt.Errorf("pairkernel: conjugate gradients: %w", err)
	}
	m.Iterations, m.Converged = res.Iterations, res.Converged
	if ny := math.Sqrt(dot(y, y)); ny > 0 {
		r := make([]float64, n)
		a.Apply(r, m.Coef)
		s := 0.0
		for i := range r {
			d := y[i] - r[i]
			s += d * d
		}
		m.Residual = math.Sqrt(s) / ny
	}
	return m, nil
}

// Predict returns f at the pairs test, given cross, the kernel list of the
// model's terms with rows indexing the test objects and columns the
// training objects (Kind.Base with the cross kernels for the named
// kernels; with the training kernels themselves it gives the fitted
// values). O(n·(m' + q)) per term for n training pairs (see
// Operator.MulVec).
func (m *Model) Predict(cross []*mat.Dense, test Pairs) ([]float64, error) {
	op, err := NewOperator(cross, m.Terms, test, m.Train)
	if err != nil {
		return nil, err
	}
	out := make([]float64, test.Len())
	op.MulVec(out, m.Coef)
	return out, nil
}
