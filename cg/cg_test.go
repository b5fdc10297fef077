package cg_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/internal/krylov"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// data returns an m×d matrix with about half its entries zero, labels
// Y = X·W + noise (m×t) and query ids drawn from a few arbitrary ints.
func data(seed uint64, m, d, t int, noise float64) (*mat.Dense, *mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if rng.Float64() < 0.5 {
				x.Set(i, j, rng.NormFloat64())
			}
		}
	}
	w := mat.NewDense(d, t, nil)
	for j := 0; j < d; j++ {
		for c := 0; c < t; c++ {
			w.Set(j, c, rng.NormFloat64())
		}
	}
	y := mat.NewDense(m, t, nil)
	y.Mul(x, w)
	for i := 0; i < m; i++ {
		for c := 0; c < t; c++ {
			y.Set(i, c, y.At(i, c)+1.5+noise*rng.NormFloat64())
		}
	}
	ids := []int{7, -3, 100, 42, 0, 5}
	q := make([]int, m)
	for i := range q {
		q[i] = ids[rng.IntN(len(ids))]
	}
	return x, y, q
}

// toCSR stores the non-zeros of a dense matrix row by row.
func toCSR(x *mat.Dense) *matrix.CSR {
	m, d := x.Dims()
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); v != 0 {
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		indptr = append(indptr, len(idx))
	}
	c, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		panic(err)
	}
	return c
}

// laplacian returns L densely (test only).
func laplacian(loss learn.Loss, m int, q []int) *mat.Dense {
	l := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			switch loss {
			case learn.Squared:
				if i == j {
					l.Set(i, j, 1)
				}
			case learn.AllPairs:
				v := -1.0
				if i == j {
					v += float64(m)
				}
				l.Set(i, j, v)
			case learn.QueryPairs:
				if q[i] != q[j] {
					continue
				}
				v := -1.0
				if i == j {
					for _, k := range q {
						if k == q[i] {
							v++
						}
					}
				}
				l.Set(i, j, v)
			}
		}
	}
	return l
}

// normalEquations forms X̃ = [X, √bias·1] (X alone for bias 0) and the
// normal equations A = X̃ᵀLX̃ + λI, R = X̃ᵀLY densely.
func normalEquations(x, y *mat.Dense, loss learn.Loss, q []int, bias, lambda float64) (xt, a, rhs *mat.Dense) {
	m, d := x.Dims()
	n := d
	if bias > 0 {
		n++
	}
	xt = mat.NewDense(m, n, nil)
	xt.Slice(0, m, 0, d).(*mat.Dense).Copy(x)
	if bias > 0 {
		for i := 0; i < m; i++ {
			xt.Set(i, d, math.Sqrt(bias))
		}
	}
	l := laplacian(loss, m, q)
	var lx, lyb mat.Dense
	a, rhs = new(mat.Dense), new(mat.Dense)
	lx.Mul(l, xt)
	a.Mul(xt.T(), &lx)
	for k := 0; k < n; k++ {
		a.Set(k, k, a.At(k, k)+lambda)
	}
	lyb.Mul(l, y)
	rhs.Mul(xt.T(), &lyb)
	return xt, a, rhs
}

// direct solves (X̃ᵀLX̃ + λI)w = X̃ᵀLY densely and returns W (d×t) and B.
func direct(t *testing.T, x, y *mat.Dense, loss learn.Loss, q []int, bias, lambda float64) (*mat.Dense, []float64) {
	t.Helper()
	_, d := x.Dims()
	_, nt := y.Dims()
	_, a, rhs := normalEquations(x, y, loss, q, bias, lambda)
	var w mat.Dense
	if err := w.Solve(a, rhs); err != nil {
		t.Fatalf("direct solve: %v", err)
	}
	b := make([]float64, nt)
	if bias > 0 {
		for c := range b {
			b[c] = math.Sqrt(bias) * w.At(d, c)
		}
	}
	return mat.DenseCopyOf(w.Slice(0, d, 0, nt)), b
}

// eps is the float64 unit roundoff 2⁻⁵².
const eps = 0x1p-52

// eigCond is the 2-norm condition number λ_max/λ_min of a symmetric
// positive definite matrix, from its eigenvalues.
func eigCond(t *testing.T, a mat.Matrix) float64 {
	t.Helper()
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var e mat.EigenSym
	if !e.Factorize(s, false) {
		t.Fatal("eigendecomposition failed")
	}
	v := e.Values(nil)
	if !(v[0] > 0) {
		t.Fatalf("not positive definite: eigenvalues %v", v)
	}
	return v[n-1] / v[0]
}

// cgBound is the relative error ‖Ŵ − W*‖_F/‖W*‖_F that CG's stopping rule
// allows, plus the direct solve's own rounding, for the system
// A = X̃ᵀLX̃ + λI (n×n) of width d features.
//
// CG stops at ‖r‖ ≤ Tol·‖b‖ (r = b − Aŵ, b = X̃ᵀLy), and r = A(w* − ŵ), so
// ‖ŵ − w*‖ ≤ ‖A⁻¹‖·‖r‖ ≤ κ·(‖r‖/‖b‖)·‖w*‖. The κ that counts is that of A on
// the invariant subspace holding b and so every iterate: under the ranking
// losses with a bias, L1 = 0 makes the bias coordinate an eigenvector of A
// with eigenvalue λ that b does not touch (b's bias entry is √bias·1ᵀLy = 0),
// so κ is that of the leading d×d block; otherwise of A. res is the relative
// residual of the stopping rule, Tol. The direct LU solve adds n·κ(A)·ε
// (backward error n·ε‖A‖, amplified by κ(A) — all of A's, since rounding does
// reach the bias coordinate), which also covers the rounding in forming A and
// b. The safety factor 2 allows the true residual up to 2·Tol, for the drift
// of CG's recurred residual from it (the tests check that: trueResidual).
func cgBound(t *testing.T, a *mat.Dense, loss learn.Loss, d int, bias, res float64) float64 {
	t.Helper()
	n, _ := a.Dims()
	kS := eigCond(t, a)
	if loss != learn.Squared && bias > 0 {
		for j := 0; j < d; j++ {
			if math.Abs(a.At(d, j)) > 1e-12*mat.Norm(a, 2) {
				t.Fatalf("A[%d,%d] = %g: the bias coordinate is not decoupled", d, j, a.At(d, j))
			}
		}
		kS = eigCond(t, a.Slice(0, d, 0, d))
	}
	return 2 * (kS*res + float64(n)*eigCond(t, a)*eps)
}

// trueResidual is max over the outputs of ‖b − Aŵ‖/‖b‖, Ŵ stacked as [W; B/√bias].
func trueResidual(a, rhs, w *mat.Dense, b []float64, bias float64) float64 {
	n, _ := a.Dims()
	d, nt := w.Dims()
	wt := mat.NewDense(n, nt, nil)
	wt.Slice(0, d, 0, nt).(*mat.Dense).Copy(w)
	if n > d {
		for c := 0; c < nt; c++ {
			wt.Set(d, c, b[c]/math.Sqrt(bias))
		}
	}
	var r mat.Dense
	r.Mul(a, wt)
	r.Sub(rhs, &r)
	worst := 0.0
	for c := 0; c < nt; c++ {
		worst = math.Max(worst, mat.Norm(r.ColView(c), 2)/mat.Norm(rhs.ColView(c), 2))
	}
	return worst
}

// relDiff returns ‖[W₁;B₁] − [W₂;B₂]‖ / ‖[W₂;B₂]‖.
func relDiff(w1 *mat.Dense, b1 []float64, w2 *mat.Dense, b2 []float64) float64 {
	var diff mat.Dense
	diff.Sub(w1, w2)
	num := math.Pow(mat.Norm(&diff, 2), 2)
	den := math.Pow(mat.Norm(w2, 2), 2)
	for c := range b1 {
		num += (b1[c] - b2[c]) * (b1[c] - b2[c])
		den += b2[c] * b2[c]
	}
	return math.Sqrt(num / den)
}

func relDiffMat(a, b *mat.Dense) float64 {
	var diff mat.Dense
	diff.Sub(a, b)
	return mat.Norm(&diff, 2) / mat.Norm(b, 2)
}

var losses = []learn.Loss{learn.Squared, learn.AllPairs, learn.QueryPairs}

func TestAgainstDirectSolve(t *testing.T) {
	const m, d = 40, 6
	for _, loss := range losses {
		for _, sparse := range []bool{false, true} {
			for _, nt := range []int{1, 3} {
				for _, bias := range []float64{0, 1} {
					for _, lambda := range []float64{1e-2, 1, 100} {
						name := fmt.Sprintf("%v/sparse=%v/t=%d/bias=%g/lambda=%g", loss, sparse, nt, bias, lambda)
						t.Run(name, func(t *testing.T) {
							x, y, q := data(uint64(nt)*7+uint64(bias), m, d, nt, 0.3)
							var xm mat.Matrix = x
							if sparse {
								xm = toCSR(x)
							}
							const tol = 1e-10
							res, err := cg.Solve(cg.Problem{X: xm, Y: y, Loss: loss, Queries: q, Bias: bias},
								cg.Options{Lambda: lambda, Tol: tol, MaxIter: 10000})
							if err != nil {
								t.Fatal(err)
							}
							w, b := direct(t, x, y, loss, q, bias, lambda)
							_, a, rhs := normalEquations(x, y, loss, q, bias, lambda)
							if r := trueResidual(a, rhs, res.W, res.B, bias); r > 2*tol {
								t.Errorf("true relative residual %.3g: above the stopping rule's %g (reported %v)", r, tol, res.Residual)
							}
							bound := cgBound(t, a, loss, d, bias, tol)
							if bound > 1e-8 {
								t.Fatalf("error bound %.2g: too loose to catch an error of 1e-7", bound)
							}
							if e := relDiff(res.W, res.B, w, b); e > bound {
								t.Errorf("relative difference %.3g to the direct solve, bound %.3g", e, bound)
							}
							for c := 0; c < nt; c++ {
								if !res.Converged[c] || res.Residual[c] > tol {
									t.Errorf("output %d: converged %v, residual %g", c, res.Converged[c], res.Residual[c])
								}
								if res.Iterations[c] < 1 || res.BestIteration[c] != res.Iterations[c] {
									t.Errorf("output %d: iterations %d, best %d", c, res.Iterations[c], res.BestIteration[c])
								}
							}
						})
					}
				}
			}
		}
	}
}

// TestAgainstLearners checks dual = linear = CG: the CG predictor predicts as
// rls.Fit, rank.FitGlobal and rank.FitQuery with the linear kernel (linear form).
func TestAgainstLearners(t *testing.T) {
	const m, d, nt = 50, 8, 2
	x, y, q := data(3, m, d, nt, 0.5)
	xnew, _, _ := data(4, 30, d, 1, 0)
	for _, loss := range losses {
		for _, sparse := range []bool{false, true} {
			for _, bias := range []float64{0, 1} {
				for _, lambda := range []float64{1e-2, 1, 100} {
					name := fmt.Sprintf("%v/sparse=%v/bias=%g/lambda=%g", loss, sparse, bias, lambda)
					t.Run(name, func(t *testing.T) {
						var xm, xn mat.Matrix = x, xnew
						if sparse {
							xm, xn = toCSR(x), toCSR(xnew)
						}
						opt := rank.Options{Kernel: kernel.Linear{Bias: bias}, Form: learn.Linear}
						var want *model.Predictor
						switch loss {
						case learn.Squared:
							r, err := rls.Fit(xm, y, rls.Options{Kernel: kernel.Linear{Bias: bias}, Form: learn.Linear})
							if err != nil {
								t.Fatal(err)
							}
							s, err := r.Solve(lambda)
							if err != nil {
								t.Fatal(err)
							}
							want = s.Predictor()
						case learn.AllPairs:
							g, err := rank.FitGlobal(xm, y, opt)
							if err != nil {
								t.Fatal(err)
							}
							s, err := g.Solve(lambda)
							if err != nil {
								t.Fatal(err)
							}
							want = s.Predictor()
						case learn.QueryPairs:
							g, err := rank.FitQuery(xm, y, q, opt)
							if err != nil {
								t.Fatal(err)
							}
							s, err := g.Solve(lambda)
							if err != nil {
								t.Fatal(err)
							}
							want = s.Predictor()
						}
						const tol = 1e-11 // the bound below then stays under 1e-8
						res, err := cg.Solve(cg.Problem{X: xm, Y: y, Loss: loss, Queries: q, Bias: bias},
							cg.Options{Lambda: lambda, Tol: tol, MaxIter: 10000})
						if err != nil {
							t.Fatal(err)
						}
						got := res.Predictor()
						if got.Learner != map[learn.Loss]string{learn.Squared: "rls", learn.AllPairs: "globalrank", learn.QueryPairs: "queryrank"}[loss] || got.Kernel != want.Kernel || got.Width != d || len(got.Outputs) != nt {
							t.Errorf("predictor %s %v width %d outputs %v, want %s %v", got.Learner, got.Kernel, got.Width, got.Outputs, want.Learner, want.Kernel)
						}
						pg, err := got.Predict(xn)
						if err != nil {
							t.Fatal(err)
						}
						pw, err := want.Predict(xn)
						if err != nil {
							t.Fatal(err)
						}
						// The CG weights are within cgBound of the exact ones,
						// the learner's within its rounding (an
						// eigendecomposition: the direct solve's n·κ(A)·ε, which
						// cgBound includes; hence the factor 2). The predictions
						// X̃_new·w move by at most κ(X̃_new) times the weights'
						// relative error (‖X̃_new e‖ ≤ σ_max‖e‖, ‖X̃_new w‖ ≥ σ_min‖w‖).
						_, a, rhs := normalEquations(x, y, loss, q, bias, lambda)
						if r := trueResidual(a, rhs, res.W, res.B, bias); r > 2*tol {
							t.Errorf("true relative residual %.3g: above the stopping rule's %g (reported %v)", r, tol, res.Residual)
						}
						xtNew, _, _ := normalEquations(xnew, mat.NewDense(30, nt, nil), learn.Squared, nil, bias, lambda)
						bound := 2 * cgBound(t, a, loss, d, bias, tol) * mat.Cond(xtNew, 2)
						if bound > 1e-8 {
							t.Fatalf("error bound %.2g: too loose to catch an error of 1e-7", bound)
						}
						if e := relDiffMat(pg, pw); e > bound {
							t.Errorf("predictions differ by %.3g relative, bound %.3g", e, bound)
						}
					})
				}
			}
		}
	}
}

func TestIterations(t *testing.T) {
	x, y, q := data(5, 60, 10, 2, 0.3)
	cases := []struct {
		name    string
		maxIter int
		conv    bool
	}{
		{"converges", 0, true},
		{"capped", 2, false},
	}
	for _, loss := range losses {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", loss, c.name), func(t *testing.T) {
				res, err := cg.Solve(cg.Problem{X: toCSR(x), Y: y, Loss: loss, Queries: q, Bias: 1},
					cg.Options{Lambda: 1, MaxIter: c.maxIter})
				if err != nil {
					t.Fatal(err)
				}
				for o := range res.Iterations {
					if res.Converged[o] != c.conv {
						t.Errorf("output %d: converged %v, want %v", o, res.Converged[o], c.conv)
					}
					it := res.Iterations[o]
					if c.maxIter > 0 && it != c.maxIter {
						t.Errorf("output %d: %d iterations, want %d", o, it, c.maxIter)
					}
					if c.conv && (it < 1 || it > 40) {
						t.Errorf("output %d: %d iterations for 11 unknowns", o, it)
					}
					if res.BestIteration[o] != it {
						t.Errorf("output %d: best iteration %d, want %d", o, res.BestIteration[o], it)
					}
					if c.conv != (res.Residual[o] <= cg.DefaultTol) {
						t.Errorf("output %d: residual %g", o, res.Residual[o])
					}
				}
			})
		}
	}
}

// TestStoppingRule: every output stops at the first iteration whose relative
// residual is at most Tol (the run capped one iteration earlier has not
// reached it), and the zero Options use the module's one default tolerance.
func TestStoppingRule(t *testing.T) {
	x, y, q := data(15, 80, 12, 2, 0.3)
	for _, loss := range losses {
		for _, tol := range []float64{0, 1e-2, 1e-5, 1e-12} {
			t.Run(fmt.Sprintf("%v/tol=%g", loss, tol), func(t *testing.T) {
				p := cg.Problem{X: toCSR(x), Y: y, Loss: loss, Queries: q, Bias: 1}
				res, err := cg.Solve(p, cg.Options{Lambda: 0.1, Tol: tol})
				if err != nil {
					t.Fatal(err)
				}
				rule := tol
				if rule == 0 {
					rule = krylov.DefaultTol
				}
				for o := range res.Iterations {
					it := res.Iterations[o]
					if !res.Converged[o] || res.Residual[o] > rule || it < 1 {
						t.Errorf("output %d: %d iterations, converged %v, residual %g", o, it, res.Converged[o], res.Residual[o])
					}
					if it == 1 {
						continue
					}
					prev, err := cg.Solve(p, cg.Options{Lambda: 0.1, Tol: tol, MaxIter: it - 1})
					if err != nil {
						t.Fatal(err)
					}
					if prev.Converged[o] || !(prev.Residual[o] > rule) {
						t.Errorf("output %d: iteration %d already had residual %g ≤ %g", o, it-1, prev.Residual[o], rule)
					}
				}
			})
		}
	}
	if cg.DefaultTol != krylov.DefaultTol || cg.DefaultMaxIter != krylov.DefaultMaxIter {
		t.Errorf("defaults %g, %d differ from krylov's %g, %d", cg.DefaultTol, cg.DefaultMaxIter, krylov.DefaultTol, krylov.DefaultMaxIter)
	}
}

// TestValidationToConvergence: on noise-free labels the validation error
// falls to the end, so the converged last iterate is the one kept, the same
// as without a validation set, and it is reported as converged.
func TestValidationToConvergence(t *testing.T) {
	xa, ya, qa := data(16, 90, 8, 2, 0) // 60 rows to train on, 30 to validate
	x, y, q := mat.DenseCopyOf(xa.Slice(0, 60, 0, 8)), mat.DenseCopyOf(ya.Slice(0, 60, 0, 2)), qa[:60]
	xv, yv, qv := mat.DenseCopyOf(xa.Slice(60, 90, 0, 8)), mat.DenseCopyOf(ya.Slice(60, 90, 0, 2)), qa[60:]
	mse, _ := measure.ByName("mse")
	p := cg.Problem{X: x, Y: y, Loss: learn.Squared, Queries: q, Bias: 1}
	v := &cg.Validation{X: xv, Y: yv, Queries: qv, Measure: mse, Every: 1, Patience: 3}
	res, err := cg.Solve(p, cg.Options{Lambda: 1e-8, Validation: v})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := cg.Solve(p, cg.Options{Lambda: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	for o := range res.Iterations {
		if !res.Converged[o] || res.BestIteration[o] != res.Iterations[o] || res.Iterations[o] != plain.Iterations[o] ||
			res.Residual[o] != plain.Residual[o] {
			t.Errorf("output %d: %d iterations (best %d), converged %v, residual %g; without validation %d, %g", o,
				res.Iterations[o], res.BestIteration[o], res.Converged[o], res.Residual[o], plain.Iterations[o], plain.Residual[o])
		}
	}
	if !mat.Equal(res.W, plain.W) {
		t.Error("weights differ from the run without validation")
	}
}

// TestZeroRightHandSide: constant labels carry no ranking information, X̃ᵀLy = 0.
func TestZeroRightHandSide(t *testing.T) {
	x, _, _ := data(6, 20, 4, 1, 0)
	y := mat.NewDense(20, 1, nil)
	for i := 0; i < 20; i++ {
		y.Set(i, 0, 3)
	}
	res, err := cg.Solve(cg.Problem{X: x, Y: y, Loss: learn.AllPairs, Bias: 1}, cg.Options{Lambda: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations[0] != 0 || !res.Converged[0] || res.Residual[0] != 0 || res.B[0] != 0 || mat.Norm(res.W, 2) != 0 {
		t.Errorf("got %d iterations, converged %v, residual %g, |W| %g, B %g", res.Iterations[0], res.Converged[0],
			res.Residual[0], mat.Norm(res.W, 2), res.B[0])
	}
}

func TestEarlyStopping(t *testing.T) {
	// Few noisy rows, many features, tiny λ: CG overfits as it goes on, so the
	// validation value peaks early.
	const m, d, nt = 60, 50, 2
	x, y, q := data(8, m, d, nt, 3)
	xv, yv, qv := data(9, 200, d, nt, 3)
	mse, _ := measure.ByName("mse")
	cindex, _ := measure.ByName("cindex")
	dis, _ := measure.ByName("disagreement")
	cases := []struct {
		loss            learn.Loss
		meas            measure.Measure
		every, patience int
	}{
		{learn.Squared, mse, 1, 3},
		{learn.Squared, mse, 0, 0},
		{learn.AllPairs, cindex, 2, 2},
		{learn.QueryPairs, dis, 3, 2},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v/%s/every=%d", c.loss, c.meas.Name, c.every), func(t *testing.T) {
			xm, xvm := toCSR(x), toCSR(xv)
			p := cg.Problem{X: xm, Y: y, Loss: c.loss, Queries: q, Bias: 1}
			const maxIter = 200
			v := &cg.Validation{X: xvm, Y: yv, Queries: qv, Measure: c.meas, Every: c.every, Patience: c.patience}
			res, err := cg.Solve(p, cg.Options{Lambda: 1e-6, Tol: 1e-12, MaxIter: maxIter, Validation: v})
			if err != nil {
				t.Fatal(err)
			}
			every := c.every
			if every == 0 {
				every = cg.DefaultEvery
			}
			score := func(r *cg.Result, o int) float64 {
				pred, err := r.Predictor().Predict(xvm)
				if err != nil {
					t.Fatal(err)
				}
				col := func(a *mat.Dense) *mat.Dense { return mat.DenseCopyOf(a.Slice(0, 200, o, o+1)) }
				s, err := c.meas.Score(col(yv), col(pred), qv)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			for o := 0; o < nt; o++ {
				it, bestIt := res.Iterations[o], res.BestIteration[o]
				if bestIt < 1 || bestIt > it {
					t.Fatalf("output %d: best iteration %d of %d", o, bestIt, it)
				}
				// The evaluated iterations: multiples of every, and the last.
				evals := []int{}
				for k := every; k <= it; k += every {
					evals = append(evals, k)
				}
				if evals[len(evals)-1] != it {
					evals = append(evals, it)
				}
				var bestVal float64
				for _, k := range evals {
					r, err := cg.Solve(p, cg.Options{Lambda: 1e-6, Tol: 1e-12, MaxIter: k})
					if err != nil {
						t.Fatal(err)
					}
					s := score(r, o)
					if k == bestIt {
						bestVal = s
						for j := 0; j < d; j++ {
							if r.W.At(j, o) != res.W.At(j, o) {
								t.Fatalf("output %d: weight %d is %v, the rerun to iteration %d gives %v", o, j, res.W.At(j, o), k, r.W.At(j, o))
							}
						}
						if r.B[o] != res.B[o] || r.Residual[o] != res.Residual[o] || r.Converged[o] != res.Converged[o] {
							t.Errorf("output %d: rerun B %v residual %v converged %v, result %v %v %v", o,
								r.B[o], r.Residual[o], r.Converged[o], res.B[o], res.Residual[o], res.Converged[o])
						}
					}
				}
				for _, k := range evals {
					r, _ := cg.Solve(p, cg.Options{Lambda: 1e-6, Tol: 1e-12, MaxIter: k})
					if s := score(r, o); c.meas.Better(s, bestVal) {
						t.Errorf("output %d: iteration %d scores %v, better than the kept %d (%v)", o, k, s, bestIt, bestVal)
					}
				}
				// Noisy data overfits: the patience runs out, Patience evaluations after the best.
				patience := c.patience
				if patience == 0 {
					patience = cg.DefaultPatience
				}
				if it >= maxIter || it != bestIt+patience*every || res.Converged[o] {
					t.Errorf("output %d: %d iterations, best %d, converged %v: want a stop %d×%d iterations after the best",
						o, it, bestIt, res.Converged[o], patience, every)
				}
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	x, y, q := data(10, 20, 4, 2, 0.1)
	xv, yv, qv := data(11, 10, 4, 2, 0.1)
	mse, _ := measure.ByName("mse")
	dis, _ := measure.ByName("disagreement")
	nanY := mat.DenseCopyOf(y)
	nanY.Set(3, 1, math.NaN())
	infX := mat.DenseCopyOf(x)
	infX.Set(2, 2, math.Inf(1))
	good := cg.Problem{X: x, Y: y, Loss: learn.QueryPairs, Queries: q}
	with := func(f func(*cg.Problem)) cg.Problem { p := good; f(&p); return p }
	val := func(f func(*cg.Validation)) cg.Options {
		v := &cg.Validation{X: xv, Y: yv, Queries: qv, Measure: mse}
		f(v)
		return cg.Options{Lambda: 1, Validation: v}
	}
	cases := []struct {
		name string
		p    cg.Problem
		opt  cg.Options
	}{
		{"lambda zero", good, cg.Options{}},
		{"lambda negative", good, cg.Options{Lambda: -1}},
		{"lambda NaN", good, cg.Options{Lambda: math.NaN()}},
		{"lambda Inf", good, cg.Options{Lambda: math.Inf(1)}},
		{"tol negative", good, cg.Options{Lambda: 1, Tol: -1e-6}},
		{"tol NaN", good, cg.Options{Lambda: 1, Tol: math.NaN()}},
		{"max iterations negative", good, cg.Options{Lambda: 1, MaxIter: -1}},
		{"nil X", with(func(p *cg.Problem) { p.X = nil }), cg.Options{Lambda: 1}},
		{"nil Y", with(func(p *cg.Problem) { p.Y = nil }), cg.Options{Lambda: 1}},
		{"Y rows", with(func(p *cg.Problem) { p.Y = mat.NewDense(19, 2, nil) }), cg.Options{Lambda: 1}},
		{"NaN in Y", with(func(p *cg.Problem) { p.Y = nanY }), cg.Options{Lambda: 1}},
		{"Inf in X", with(func(p *cg.Problem) { p.X = infX }), cg.Options{Lambda: 1}},
		{"Inf in CSR X", with(func(p *cg.Problem) { p.X = toCSR(infX) }), cg.Options{Lambda: 1}},
		{"queries short", with(func(p *cg.Problem) { p.Queries = q[:19] }), cg.Options{Lambda: 1}},
		{"queries nil", with(func(p *cg.Problem) { p.Queries = nil }), cg.Options{Lambda: 1}},
		{"bias negative", with(func(p *cg.Problem) { p.Bias = -1 }), cg.Options{Lambda: 1}},
		{"bias NaN", with(func(p *cg.Problem) { p.Bias = math.NaN() }), cg.Options{Lambda: 1}},
		{"unknown loss", with(func(p *cg.Problem) { p.Loss = 7 }), cg.Options{Lambda: 1}},
		{"validation width", good, val(func(v *cg.Validation) { v.X = mat.NewDense(10, 5, nil) })},
		{"validation Y rows", good, val(func(v *cg.Validation) { v.Y = mat.NewDense(9, 2, nil) })},
		{"validation Y outputs", good, val(func(v *cg.Validation) { v.Y = mat.NewDense(10, 1, nil) })},
		{"validation nil X", good, val(func(v *cg.Validation) { v.X = nil })},
		{"validation NaN", good, val(func(v *cg.Validation) { v.Y = mat.NewDense(10, 2, nil); v.Y.Set(0, 0, math.NaN()) })},
		{"validation needs queries", good, val(func(v *cg.Validation) { v.Measure, v.Queries = dis, nil })},
		{"validation queries short", good, val(func(v *cg.Validation) { v.Measure, v.Queries = dis, qv[:9] })},
		{"validation zero measure", good, val(func(v *cg.Validation) { v.Measure = measure.Measure{} })},
		{"validation every negative", good, val(func(v *cg.Validation) { v.Every = -1 })},
		{"validation patience negative", good, val(func(v *cg.Validation) { v.Patience = -2 })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cg.Solve(c.p, c.opt)
			if !errors.Is(err, cg.ErrInput) {
				t.Fatalf("err = %v, want wrapping ErrInput", err)
			}
			if res != nil {
				t.Errorf("result %v with an error", res)
			}
		})
	}
	// The good problem itself solves, also with the validation set.
	if _, err := cg.Solve(good, val(func(*cg.Validation) {})); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
}

// TestValidationMeasureError: a measure undefined on the validation labels is reported.
func TestValidationMeasureError(t *testing.T) {
	x, y, _ := data(12, 20, 4, 1, 0.1)
	xv, _, _ := data(13, 10, 4, 1, 0.1)
	auc, _ := measure.ByName("auc")
	yv := mat.NewDense(10, 1, nil) // a single class
	_, err := cg.Solve(cg.Problem{X: x, Y: y}, cg.Options{Lambda: 1,
		Validation: &cg.Validation{X: xv, Y: yv, Measure: auc}})
	if !errors.Is(err, measure.ErrUndefined) {
		t.Fatalf("err = %v, want wrapping measure.ErrUndefined", err)
	}
}

func TestPredictorNames(t *testing.T) {
	x, y, _ := data(14, 20, 3, 2, 0.1)
	res, err := cg.Solve(cg.Problem{X: x, Y: y, Bias: 2, Outputs: []string{"a", "b"}, Loss: learn.AllPairs}, cg.Options{Lambda: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Predictor()
	if p.Learner != "globalrank" || p.Outputs[1] != "b" || p.Kernel.Bias != 2 || p.Lambda != 1 || !p.IsLinear() {
		t.Errorf("predictor %+v", p)
	}
	p.W.Set(0, 0, 1e9)
	if res.W.At(0, 0) == 1e9 {
		t.Error("predictor shares W with the result")
	}
	res2, err := cg.Solve(cg.Problem{X: x, Y: y, Bias: 2, Outputs: []string{"only one"}}, cg.Options{Lambda: 1})
	if err != nil {
		t.Fatal(err)
	}
	if q := res2.Predictor(); q.Outputs[0] != "y0" || q.Learner != "rls" {
		t.Errorf("default names %v, learner %q", q.Outputs, q.Learner)
	}
}
