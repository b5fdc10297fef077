package rls

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// The sample-weight oracle solves the weighted problem on the kept rows T
// directly, with plain linear algebra (internal/oracle's kernel entries
// and refined LU; nothing of this package): the stationarity conditions of
// Σ_{i∈T} w_i(y_i − f(x_i) − b)² + λ‖f‖² with f = Σ_{j∈T} a_j k(·, x_j) are
//
//	(K_TT + λW_T⁻¹) a = y_T                       (no intercept)
//	[K_TT + λW_T⁻¹, 1; 1ᵀ, 0] [a; b] = [y_T; 0]   (with one)
//
// (a = W(y − Ka − 1b)/λ, and the intercept's equation Σ w_i r_i = 0 is 1ᵀa
// = 0), and the predictions are K_{test,T} a + b.
func weightedOracle(p problem, w []float64, icpt bool, train, test []int, lambda float64) *mat.Dense {
	xd, k := oracle.Dense(p.x), oracleKernel(p.kern)
	n := len(train)
	_, t := p.y.Dims()
	size := n
	if icpt {
		size++
	}
	a, b := mat.NewDense(size, size, nil), mat.NewDense(size, t, nil)
	ktt := k.Gram(xd, train, train)
	for r, i := range train {
		for c := range train {
			a.Set(r, c, ktt.At(r, c))
		}
		a.Set(r, r, a.At(r, r)+lambda/w[i])
		for c := 0; c < t; c++ {
			b.Set(r, c, p.y.At(i, c))
		}
		if icpt {
			a.Set(r, n, 1)
			a.Set(n, r, 1)
		}
	}
	sol := oracle.RefinedSolve(a, b)
	out := mat.NewDense(len(test), t, nil)
	out.Mul(k.Gram(xd, test, train), sol.Slice(0, n, 0, t))
	if icpt {
		for r := range test {
			for c := 0; c < t; c++ {
				out.Set(r, c, out.At(r, c)+sol.At(n, c))
			}
		}
	}
	return out
}

// drawWeights draws m weights log-uniform in [1/5, 5].
func drawWeights(rng *rand.Rand, m int) []float64 {
	w := make([]float64, m)
	for i := range w {
		w[i] = math.Exp((2*rng.Float64() - 1) * math.Log(5))
	}
	return w
}

// weightsTolerance is the oracle tolerance of the weighted problems:
// max(1e-8, 100·ε·w_max·trace(K)/λ) for every form. The factored matrix
// is S K S, whose ε-rounding (the kernel's entries, then their scaling) is
// amplified by up to ‖SKS‖/λ ≤ w_max·trace(K)/λ in λ(SKS + λI)⁻¹, as in
// tolerance's dual bound; the oracle's K + λW⁻¹ = S⁻¹(SKS + λI)S⁻¹ has the
// same amplification relative to its solution. The linear form is held to
// the dual bound because its oracle is the dual solve (and to 1e-8 from λ
// = 1 on: TestWeightsToleranceMeaningful).
func weightsTolerance(p problem, w []float64, lambda float64) float64 {
	wmax := 0.0
	for _, v := range w {
		wmax = math.Max(wmax, v)
	}
	return math.Max(1e-8, 100*2.2e-16*wmax*oracle.Trace(oracleKernel(p.kern), oracle.Dense(p.x))/lambda)
}

// weightedProblems are problems' dual and linear forms (the sparse form
// takes no weights) with drawn weights.
func weightedProblems(seed uint64) ([]problem, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var ps []problem
	var ws [][]float64
	for _, p := range problems(rng) {
		if p.form == learn.Sparse {
			continue
		}
		m, _ := p.x.Dims()
		ps, ws = append(ps, p), append(ws, drawWeights(rng, m))
	}
	return ps, ws
}

// The weights tests' tolerances can fail: below 1e-2 at every λ, and 1e-8
// from λ = 1 on for every problem of their seeds — a 1e-7 error fails there.
func TestWeightsToleranceMeaningful(t *testing.T) {
	for seed := uint64(41); seed <= 42; seed++ {
		ps, ws := weightedProblems(seed)
		for n, p := range ps {
			for _, lambda := range lambdas {
				tol := weightsTolerance(p, ws[n], lambda)
				if tol >= 1e-2 || lambda >= 1 && tol > 1e-8 {
					t.Errorf("seed %d %s λ=%g: tolerance %.1e", seed, p.name, lambda, tol)
				}
			}
		}
	}
}

// TestWeightsEqualsRefit: with sample weights, with and without an
// intercept, the fitted values, the predictor, leave-one-out, hold-outs of
// every size, k-fold along the λ path (HoldOutPath) and leave-pair-out all
// equal the weighted problem solved afresh on the kept rows.
func TestWeightsEqualsRefit(t *testing.T) {
	worst := map[string]float64{}
	for seed := uint64(41); seed <= 42; seed++ {
		ps, ws := weightedProblems(seed)
		rng := rand.New(rand.NewPCG(seed, 9))
		for n, p := range ps {
			w := ws[n]
			m, _ := p.x.Dims()
			all := oracle.AllRows(m)
			for _, icpt := range []bool{false, true} {
				name := fmt.Sprintf("seed%d/%s/icpt%v", seed, p.name, icpt)
				r, err := Fit(p.x, p.y, Options{Kernel: p.kern, Form: p.form, Intercept: icpt, Weights: w})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				check := func(what string, lambda float64, got, want *mat.Dense) {
					t.Helper()
					e, tol := relErr(got, want), weightsTolerance(p, w, lambda)
					worst[what] = math.Max(worst[what], e/tol)
					if e > tol {
						t.Errorf("%s λ=%g %s: rel. error %.2e (tolerance %.1e)", name, lambda, what, e, tol)
					}
				}
				if !mat.Equal(r.Labels(), p.y) {
					t.Fatalf("%s: Labels are not the labels given", name)
				}
				// k-fold (5 folds of a random permutation) on the path
				perm := rng.Perm(m)
				var folds [][]int
				for f := 0; f < 5; f++ {
					var fold []int
					for i := f; i < m; i += 5 {
						fold = append(fold, perm[i])
					}
					folds = append(folds, fold)
				}
				err = r.HoldOutPath(folds, lambdas, func(l int, pr *mat.Dense) error {
					for _, f := range folds {
						check("k-fold", lambdas[l], oracle.Rows(pr, f), weightedOracle(p, w, icpt, complementRows(f, m), f, lambdas[l]))
					}
					return nil
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, lambda := range lambdas {
					s, err := r.Solve(lambda)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					full := weightedOracle(p, w, icpt, all, all, lambda)
					check("fitted", lambda, s.Fitted(), full)
					pred, err := s.Predictor().Predict(p.x)
					if err != nil {
						t.Fatal(err)
					}
					check("predictor", lambda, pred, full)
					var res mat.Dense
					res.Sub(p.y, full)
					check("residuals", lambda, s.Residuals(), &res)
					loo, _ := s.LeaveOneOut()
					want := mat.NewDense(m, p.y.RawMatrix().Cols, nil)
					for i := 0; i < m; i++ {
						want.SetRow(i, weightedOracle(p, w, icpt, complementRows([]int{i}, m), []int{i}, lambda).RawRowView(0))
					}
					check("loo", lambda, loo, want)
					for _, size := range []int{2, m / 2, m - 2} {
						h := rng.Perm(m)[:size]
						got, err := s.HoldOut(h)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						check("hold-out", lambda, got, weightedOracle(p, w, icpt, complementRows(h, m), h, lambda))
					}
					pairs := []learn.Pair{{I: 0, J: m - 1}, {I: 2, J: 1}}
					pi, pj, err := s.LeavePairOut(pairs)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for q, pr := range pairs {
						want := weightedOracle(p, w, icpt, complementRows([]int{pr.I, pr.J}, m), []int{pr.I, pr.J}, lambda)
						got := mat.NewDense(2, want.RawMatrix().Cols, nil)
						got.SetRow(0, pi.RawRowView(q))
						got.SetRow(1, pj.RawRowView(q))
						check("pair", lambda, got, want)
					}
				}
			}
		}
	}
	for what, v := range worst {
		t.Logf("%s: largest error %.2g of the tolerance", what, v)
	}
}

// TestWeightsOnesEqualUnweighted: weights all 1 give the model without
// weights, to rounding (the same factorization of the same matrix).
func TestWeightsOnesEqualUnweighted(t *testing.T) {
	ps, _ := weightedProblems(43)
	for _, p := range ps {
		m, _ := p.x.Dims()
		ones := make([]float64, m)
		for i := range ones {
			ones[i] = 1
		}
		for _, icpt := range []bool{false, true} {
			a, err := Fit(p.x, p.y, Options{Kernel: p.kern, Form: p.form, Intercept: icpt})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Fit(p.x, p.y, Options{Kernel: p.kern, Form: p.form, Intercept: icpt, Weights: ones})
			if err != nil {
				t.Fatal(err)
			}
			for _, lambda := range lambdas {
				sa, _ := a.Solve(lambda)
				sb, _ := b.Solve(lambda)
				la, _ := sa.LeaveOneOut()
				lb, _ := sb.LeaveOneOut()
				if e := relErr(lb, la); e > 1e-12 {
					t.Errorf("%s icpt %v λ=%g: LOO with weights 1 differs by %.1e", p.name, icpt, lambda, e)
				}
				if e := relErr(sb.Coefficients(), sa.Coefficients()); e > 1e-12 {
					t.Errorf("%s icpt %v λ=%g: coefficients with weights 1 differ by %.1e", p.name, icpt, lambda, e)
				}
			}
		}
	}
}

// TestWeightsRefused: weights that are not positive and finite, of the
// wrong length, with the sparse form or the conjugate-gradient solver are
// refused, naming the row or the form.
func TestWeightsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, y := randProblem(rng, 10, 3, 1, false)
	good := drawWeights(rng, 10)
	for name, w := range map[string][]float64{
		"zero": {1, 1, 1, 0, 1, 1, 1, 1, 1, 1}, "negative": {1, 1, 1, 1, 1, 1, 1, 1, 1, -2},
		"nan": {1, math.NaN(), 1, 1, 1, 1, 1, 1, 1, 1}, "inf": {math.Inf(1), 1, 1, 1, 1, 1, 1, 1, 1, 1},
		"short": good[:9],
	} {
		_, err := Fit(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Weights: w})
		if !errors.Is(err, learn.ErrShape) {
			t.Errorf("%s: got %v, want ErrShape", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := Fit(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Basis: []int{0, 3, 5}, Weights: good}); err == nil {
		t.Error("sparse form with weights: no error")
	}
	d := Descriptor()
	if _, err := d.New(&learn.Input{X: x, Y: y, Form: learn.Iterative, Weights: good}); err == nil {
		t.Error("conjugate gradients with weights: no error")
	}
}
