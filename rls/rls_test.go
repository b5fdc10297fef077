package rls

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

func fit(t *testing.T, p problem) *RLS {
	t.Helper()
	r, err := Fit(p.x, p.y, Options{Kernel: p.kern, Form: p.form, Basis: p.basis})
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	return r
}

func allRows(m int) []int {
	out := make([]int, m)
	for i := range out {
		out[i] = i
	}
	return out
}

// The λ path: the model re-solved at every λ predicts like a model trained
// from scratch, on its training rows (the fitted values, against the oracle)
// and on fresh points drawn apart from the training rows (against
// freshPredict, this file's own brute force).
func TestLambdaPathEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	fresh := rand.New(rand.NewPCG(101, 1))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			m, _ := p.y.Dims()
			all := allRows(m)
			xnew := freshRows(fresh, 7, p)
			for _, lambda := range lambdas {
				s, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				tol := tolerance(p, lambda)
				// the training rows: fitted values and the predictor on them
				want := naivePredict(p, all, all, lambda)
				if e := relErr(s.Fitted(), want); e > tol {
					t.Errorf("λ=%g: fitted values rel. error %.2e", lambda, e)
				}
				got, err := s.Predictor().Predict(p.x)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(got, want); e > tol {
					t.Errorf("λ=%g: predictor rel. error %.2e", lambda, e)
				}
				// fresh points, none of them a training row
				got, err = s.Predictor().Predict(xnew)
				if err != nil {
					t.Fatal(err)
				}
				wantNew, ftol := freshPredict(t, p, xnew, lambda)
				if e := relErr(got, wantNew); e > ftol {
					t.Errorf("λ=%g: predictions at fresh points rel. error %.2e (tolerance %.2e)", lambda, e, ftol)
				}
			}
		})
	}
}

// freshRows draws n new rows like the problem's (N(0,1) features, for sparse
// data half the entries outside column 0 zero, as CSR), independently of the
// training rows.
func freshRows(rng *rand.Rand, n int, p problem) mat.Matrix {
	_, d := p.x.Dims()
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if p.sparse && j > 0 && rng.Float64() < 0.5 {
				continue
			}
			x.Set(i, j, rng.NormFloat64())
		}
	}
	if p.sparse {
		return toCSR(x)
	}
	return x
}

// freshKernel is k(a, b) by the textbook formula of the kernel's spec.
func freshKernel(s kernel.Spec, a, b []float64) float64 {
	dot, dist := 0.0, 0.0
	for n := range a {
		dot += a[n] * b[n]
		dist += (a[n] - b[n]) * (a[n] - b[n])
	}
	switch s.Name {
	case "linear":
		return dot + s.Bias
	case "gaussian":
		return math.Exp(-s.Gamma * dist)
	case "polynomial":
		return math.Pow(s.Gamma*dot+s.Coef0, float64(s.Degree))
	}
	panic("no formula for kernel " + s.Name)
}

// freshGram is the matrix k(a_i, b_j) of the rows of two dense matrices.
func freshGram(s kernel.Spec, a, b *mat.Dense) *mat.Dense {
	ra, _ := a.Dims()
	rb, _ := b.Dims()
	out := mat.NewDense(ra, rb, nil)
	for i := 0; i < ra; i++ {
		for j := 0; j < rb; j++ {
			out.Set(i, j, freshKernel(s, a.RawRowView(i), b.RawRowView(j)))
		}
	}
	return out
}

// freshDense copies any matrix entry by entry.
func freshDense(x mat.Matrix) *mat.Dense {
	m, d := x.Dims()
	out := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			out.Set(i, j, x.At(i, j))
		}
	}
	return out
}

// freshPredict predicts the rows xnew by the model trained on all of p from
// scratch: the kernel between the new and the expansion points times the
// dual coefficients of a brute-force solve (LU),
//
//	dual, linear:  (K + λI) A = Y,                 f = K(new, X) A
//	sparse:        (K_BXK_XB + λK_BB) A = K_BX Y,  f = K(new, B) A
//
// (the sparse system is the normal equations of ‖Y − K_XB A‖² + λAᵀK_BBA,
// the subset of regressors). It returns the predictions and their relative
// tolerance: the oracle's (tolerance), for any form as for the dual one —
// the dual solve here rounds K's entries by ε·|K| and (K + λI)⁻¹ amplifies
// that by up to 1/λ, max(1e-8, 100·ε·trace(K)/λ), also where the package
// itself solves the better conditioned primal (linear form); 1e-8 for the
// sparse system. The fresh rows are drawn like the training rows, so their
// kernel rows k(x*, X) are of the size of K's rows and carry the rounding of
// the coefficients as the fitted values do.
func freshPredict(t *testing.T, p problem, xnew mat.Matrix, lambda float64) (*mat.Dense, float64) {
	t.Helper()
	spec := p.kern.Spec()
	x, xn := freshDense(p.x), freshDense(xnew)
	var sys, rhs, kn *mat.Dense
	if p.basis == nil {
		sys = freshGram(spec, x, x)
		for i := range sys.RawMatrix().Rows {
			sys.Set(i, i, sys.At(i, i)+lambda)
		}
		rhs = p.y
		kn = freshGram(spec, xn, x)
	} else {
		_, d := x.Dims()
		xb := mat.NewDense(len(p.basis), d, nil)
		for n, i := range p.basis {
			xb.SetRow(n, x.RawRowView(i))
		}
		kxb := freshGram(spec, x, xb)
		sys = mat.NewDense(len(p.basis), len(p.basis), nil)
		sys.Mul(kxb.T(), kxb)
		kbb := freshGram(spec, xb, xb)
		kbb.Scale(lambda, kbb)
		sys.Add(sys, kbb)
		rhs = new(mat.Dense)
		rhs.Mul(kxb.T(), p.y)
		kn = freshGram(spec, xn, xb)
	}
	var a, out mat.Dense
	if err := a.Solve(sys, rhs); err != nil {
		t.Fatalf("brute-force solve: %v", err)
	}
	out.Mul(kn, &a)
	if p.basis != nil {
		return &out, 1e-8
	}
	trace := 0.0
	for i := 0; i < sys.RawMatrix().Rows; i++ {
		trace += math.Abs(sys.At(i, i) - lambda)
	}
	const eps = 0x1p-52 // the float64 unit roundoff
	return &out, math.Max(1e-8, 100*eps*trace/lambda)
}

func TestLeaveOneOutEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			m, tt := p.y.Dims()
			for _, lambda := range lambdas {
				s, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				tol := tolerance(p, lambda)
				loo := loo(t, s)
				want := mat.NewDense(m, tt, nil)
				for i := 0; i < m; i++ {
					want.SetRow(i, naivePredict(p, complementRows([]int{i}, m), []int{i}, lambda).RawRowView(0))
				}
				if e := relErr(loo, want); e > tol {
					t.Errorf("λ=%g: LOO rel. error %.2e", lambda, e)
				}
			}
		})
	}
}

func TestHoldOutEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			m, _ := p.y.Dims()
			for _, size := range []int{1, 2, 3, m / 3, m / 2} {
				if size < 1 {
					continue
				}
				h := rng.Perm(m)[:size]
				for _, lambda := range lambdas {
					s, err := r.Solve(lambda)
					if err != nil {
						t.Fatal(err)
					}
					tol := tolerance(p, lambda)
					got, err := s.HoldOut(h)
					if err != nil {
						t.Fatal(err)
					}
					want := naivePredict(p, complementRows(h, m), h, lambda)
					if e := relErr(got, want); e > tol {
						t.Errorf("|H|=%d λ=%g: hold-out rel. error %.2e", size, lambda, e)
					}
				}
			}
		})
	}
}

func TestLeavePairOutEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fit(t, p)
			m, _ := p.y.Dims()
			// few pairs (per-pair path) and all pairs (the path that forms A once)
			var few, all []learn.Pair
			for i := 0; i < m; i++ {
				for j := i + 1; j < m; j++ {
					all = append(all, learn.Pair{I: i, J: j})
				}
			}
			for k := 0; k < 5; k++ {
				q := rng.Perm(m)
				few = append(few, learn.Pair{I: q[0], J: q[1]})
			}
			for _, lambda := range lambdas {
				s, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				tol := tolerance(p, lambda)
				for _, pairs := range [][]learn.Pair{few, all} {
					pi, pj, err := s.LeavePairOut(pairs)
					if err != nil {
						t.Fatal(err)
					}
					for n, pr := range pairs {
						if len(pairs) > 20 && n%7 != 0 {
							continue // check a sample of the many pairs against retraining
						}
						want := naivePredict(p, complementRows([]int{pr.I, pr.J}, m), []int{pr.I, pr.J}, lambda)
						got := mat.NewDense(2, want.RawMatrix().Cols, nil)
						got.SetRow(0, pi.RawRowView(n))
						got.SetRow(1, pj.RawRowView(n))
						if e := relErr(got, want); e > tol {
							t.Fatalf("pair %v λ=%g (%d pairs): rel. error %.2e", pr, lambda, len(pairs), e)
						}
					}
				}
			}
		})
	}
}

func TestAutoForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, y := randProblem(rng, 20, 3, 1, false)
	cases := []struct {
		name string
		opt  Options
		want factor.Form
	}{
		{"linear d<m", Options{Kernel: kernel.Linear{Bias: 1}}, factor.Linear},
		{"gaussian", Options{Kernel: kernel.Gaussian{Gamma: 1}}, factor.Dual},
		{"basis", Options{Kernel: kernel.Gaussian{Gamma: 1}, Basis: []int{1, 2}}, factor.Sparse},
		{"negative bias", Options{Kernel: kernel.Linear{Bias: -1}}, factor.Dual},
	}
	for _, c := range cases {
		r, err := Fit(x, y, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Form() != c.want {
			t.Errorf("%s: form %v, want %v", c.name, r.Form(), c.want)
		}
	}
	xw, yw := randProblem(rng, 5, 8, 1, false)
	r, err := Fit(xw, yw, Options{Kernel: kernel.Linear{Bias: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Form() != factor.Dual {
		t.Errorf("linear d≥m: form %v, want dual", r.Form())
	}
}
