// Package krylov is the one conjugate-gradient loop of the module: it solves a
// linear system
//
//	A x = b,   A ∈ ℝⁿˣⁿ symmetric positive definite,
//
// by the method of conjugate gradients (Hestenes & Stiefel 1952, "Methods of
// conjugate gradients for solving linear systems", J. Res. Nat. Bur. Standards
// 49(6):409–436), with A given only through its product with a vector
// (Operator). Package cg (linear RLS and RankRLS on the normal equations) and
// pairwise.KronCG (Kronecker RLS on incomplete data by the generalized vec
// trick) both run it, with the same stopping rule and defaults.
//
// Each iteration costs one application of A plus O(n): two dot products and
// three vector updates of length n. Solve keeps three work vectors of length n
// besides b and x.
//
// # Stopping rule
//
// The iteration starts from x₀ = 0 (so r₀ = b) and stops at the first k with
//
//	‖r_k‖ ≤ Tol·‖b‖      (Result.Converged), or k = MaxIter,
//
// or when the Recorder returns ErrStop. r_k is the residual b − A x_k as
// updated by the recurrence r_{k+1} = r_k − α_k A p_k; it equals the true
// residual in exact arithmetic, and in floating point they drift apart by
// rounding, to about k·ε·‖A‖·max_j‖x_j‖. Since r = A(x* − x), the relative
// error of the solution is bounded by the relative residual times the
// condition number κ(A) = ‖A‖‖A⁻¹‖:
//
//	‖x_k − x*‖ ≤ κ(A)·(‖r_k‖/‖b‖)·‖x*‖ ≤ κ(A)·Tol·‖x*‖.
//
// The defaults (Settings zero values) are Tol = DefaultTol = 1e-10 and
// MaxIter = DefaultMaxIter = 1000. In exact arithmetic CG ends in at most n
// iterations; whatever n, the Chebyshev bound ‖x_k − x*‖_A ≤
// 2((√κ−1)/(√κ+1))ᵏ‖x*‖_A gives ‖r_k‖/‖b‖ ≤ 2√κ((√κ−1)/(√κ+1))ᵏ, so at most
// about ½√κ·ln(2√κ/Tol) iterations (κ = κ(A)). Rounding can delay CG well
// beyond n iterations (1284 on a random system with n = 150, κ = 10⁵, Tol 1e-10,
// within that bound's 4661). Not reaching Tol within MaxIter is not an error:
// see Result.Converged.
package krylov

import (
	"errors"
	"fmt"
	"math"
)

// Defaults of the zero Settings, shared by every caller.
const (
	// DefaultTol is the relative residual ‖r_k‖/‖b‖ at which the iteration
	// stops. By the bound ‖x − x*‖ ≤ κ·Tol·‖x*‖ it gives about 10 − log₁₀κ
	// correct digits of x (and of A x, whose error is at most ‖r‖), for
	// tens to hundreds of iterations on well-posed problems.
	DefaultTol = 1e-10
	// DefaultMaxIter caps the iterations.
	DefaultMaxIter = 1000
)

var (
	// ErrStop, returned by Recorder.Record, ends the iteration cleanly: Solve
	// returns the iterate just recorded with Result.Stopped set and no error.
	ErrStop = errors.New("krylov: stopped by the recorder")
	// ErrIndefinite is returned (wrapped) when a search direction p has
	// pᵀAp ≤ 0: A is not positive definite (or, for a semidefinite A, b is not
	// in its range). CG is only defined for positive definite A.
	ErrIndefinite = errors.New("krylov: operator is not positive definite")
	// ErrNonFinite is returned (wrapped) when b, or pᵀAp during the
	// iteration, is NaN or infinite.
	ErrNonFinite = errors.New("krylov: non-finite value")
	// ErrSettings is returned (wrapped) for Tol < 0, NaN or +Inf, or MaxIter < 0.
	ErrSettings = errors.New("krylov: invalid settings")
)

// Operator is a symmetric positive definite n×n matrix A (or semidefinite with
// b in its range, where CG converges to the minimum-norm solution from x₀ = 0)
// given by its product: Apply sets dst = A·v (len(dst) = len(v) = n; dst and v do not overlap, and
// Apply must not keep or modify v). Solve calls it once per iteration.
type Operator interface {
	Apply(dst, v []float64)
}

// OperatorFunc is a function used as an Operator.
type OperatorFunc func(dst, v []float64)

// Apply calls f(dst, v).
func (f OperatorFunc) Apply(dst, v []float64) { f(dst, v) }

// Settings configure Solve. The zero value is the default rule.
type Settings struct {
	// Tol ≥ 0 stops the iteration when ‖r_k‖ ≤ Tol·‖b‖ (0: DefaultTol).
	Tol float64
	// MaxIter ≥ 0 caps the iterations (0: DefaultMaxIter).
	MaxIter int
}

// Iteration is what a Recorder is told after iteration K: the update
//
//	α_K = r_{K−1}ᵀr_{K−1} / p_{K−1}ᵀAp_{K−1},  x_K = x_{K−1} + α_K p_{K−1},
//	r_K = r_{K−1} − α_K A p_{K−1}
//
// has been made and the next direction not yet formed. The slices are the
// solver's own: read them during Record, copy what must be kept, and do not
// modify them.
type Iteration struct {
	// K ≥ 1 is the iteration number.
	K int
	// Residual is the relative residual ‖r_K‖/‖b‖ of the stopping rule.
	Residual float64
	// X is the current iterate x_K.
	X []float64
	// Step is α_K and Direction is p_{K−1}, so that x_K = x_{K−1} + Step·Direction.
	// Direction is the vector the Operator was last applied to, so a recorder
	// can update any linear image of x (say validation predictions Vx) by
	// Step·V·Direction, reusing what the operator computed for it.
	Step      float64
	Direction []float64
}

// Recorder observes the iteration, in the style of gonum/optimize's Recorder.
// Init is called once at the start of every Solve (also when b = 0 and no
// iteration follows), Record after every iteration, the last one included,
// before the stopping rule is tested. Record returning ErrStop ends the
// iteration cleanly with x_K; any other error from Init or Record aborts Solve,
// which returns that error unwrapped. The cost of a Recorder is added to every
// iteration's.
type Recorder interface {
	Init() error
	Record(Iteration) error
}

// RecordFunc is a function used as a Recorder with an Init that does nothing
// (for progress reports: RecordFunc(func(it Iteration) error { …; return nil })).
type RecordFunc func(Iteration) error

// Init does nothing.
func (RecordFunc) Init() error { return nil }

// Record calls f(it).
func (f RecordFunc) Record(it Iteration) error { return f(it) }

// Result is how the iteration ended.
type Result struct {
	// Iterations is the number K of iterations made (0 when b = 0).
	Iterations int
	// Converged reports ‖r_K‖ ≤ Tol·‖b‖ (true when b = 0).
	Converged bool
	// Residual is the relative residual ‖r_K‖/‖b‖ of the returned x_K, as
	// updated by the recurrence (0 when b = 0).
	Residual float64
	// Stopped reports that the Recorder ended the iteration with ErrStop.
	Stopped bool
}

// Solve runs conjugate gradients (Hestenes & Stiefel 1952) on A x = b from
// x₀ = 0, writing the solution into x (len(x) = len(b); its content on entry
// is ignored):
//
//	r₀ = p₀ = b
//	α_k = r_kᵀr_k / p_kᵀAp_k,  x_{k+1} = x_k + α_k p_k,  r_{k+1} = r_k − α_k Ap_k
//	β_k = r_{k+1}ᵀr_{k+1} / r_kᵀr_k,  p_{k+1} = r_{k+1} + β_k p_k
//
// until ‖r_k‖ ≤ Tol·‖b‖, MaxIter iterations, or rec returns ErrStop (see the
// package comment for the rule and the error bound it gives). rec may be nil.
// For b = 0 it returns x = 0 after no iteration.
//
// Cost: per iteration one a.Apply plus 5n multiply-adds and the Recorder's
// Record; memory 3n besides b and x.
//
// Errors: ErrSettings for invalid s; ErrNonFinite for a non-finite b or
// pᵀAp; ErrIndefinite when pᵀAp ≤ 0 (so an indefinite A is reported, never
// iterated on); a Recorder's own error as is. With an error the Result and x
// hold the last completed iteration. Solve panics if len(x) ≠ len(b).
func Solve(a Operator, b, x []float64, s Settings, rec Recorder) (Result, error) {
	n := len(b)
	if len(x) != n {
		panic(fmt.Sprintf("krylov: len(x) = %d, len(b) = %d", len(x), n))
	}
	tol, maxIter := s.Tol, s.MaxIter
	if math.IsNaN(tol) || tol < 0 || math.IsInf(tol, 1) || maxIter < 0 {
		return Result{}, fmt.Errorf("%w: tol = %v, max iterations = %d", ErrSettings, tol, maxIter)
	}
	if tol == 0 {
		tol = DefaultTol
	}
	if maxIter == 0 {
		maxIter = DefaultMaxIter
	}
	clear(x)
	if rec != nil {
		if err := rec.Init(); err != nil {
			return Result{}, err
		}
	}
	rr := dot(b, b)
	if math.IsNaN(rr) || math.IsInf(rr, 0) {
		return Result{}, fmt.Errorf("%w: ‖b‖² = %v", ErrNonFinite, rr)
	}
	bnorm := math.Sqrt(rr)
	if bnorm == 0 {
		return Result{Converged: true}, nil
	}
	r := append([]float64(nil), b...)
	p := append([]float64(nil), b...)
	ap := make([]float64, n)
	res := Result{Residual: 1}
	for k := 1; k <= maxIter; k++ {
		a.Apply(ap, p)
		pap := dot(p, ap)
		switch {
		case math.IsNaN(pap) || math.IsInf(pap, 0):
			return res, fmt.Errorf("%w: pᵀAp = %v at iteration %d", ErrNonFinite, pap, k)
		case pap <= 0:
			return res, fmt.Errorf("%w: pᵀAp = %g at iteration %d", ErrIndefinite, pap, k)
		}
		alpha := rr / pap
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * ap[i]
		}
		rrNew := dot(r, r)
		res.Iterations = k
		res.Residual = math.Sqrt(rrNew) / bnorm
		res.Converged = res.Residual <= tol
		if rec != nil {
			err := rec.Record(Iteration{K: k, Residual: res.Residual, X: x, Step: alpha, Direction: p})
			if errors.Is(err, ErrStop) {
				res.Stopped = true
				return res, nil
			}
			if err != nil {
				return res, err
			}
		}
		if res.Converged {
			break
		}
		beta := rrNew / rr
		for i := range p {
			p[i] = r[i] + beta*p[i]
		}
		rr = rrNew
	}
	return res, nil
}

// dot returns aᵀb, summed in index order (the order matters for the
// bit-for-bit reproducibility of a run).
func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
