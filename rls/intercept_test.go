package rls

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// This file tests the unpenalized intercept (Options.Intercept) against
// refitting f and b on the reduced data by icptOracle, which solves the
// augmented system directly and shares no code with the package: the
// kernel values, rows and bias column come from internal/oracle, the solves
// are gonum's.

// icptOracle refits min ‖Y_t − f(X_t) − 1bᵀ‖² + λ‖f‖² on the rows train of
// the problem (the basis rows index p.x) and predicts the rows of xs (dense,
// d columns): f(xs) + b.
//   - dual: the stationarity conditions of the representer f = Σ_t a_j k(·, x_j),
//     [K_tt + λI, 1; 1ᵀ, 0] [a; bᵀ] = [Y_t; 0], solved by LU with refinement
//     in twice the working precision (oracle.RefinedSolve);
//   - linear kernel by its primal, and sparse by Φ = K_{·B}L⁻ᵀ (K_BB = LLᵀ):
//     the augmented least-squares problem [F, 1; √λI, 0] [w; bᵀ] ≈ [Y_t; 0],
//     whose last column is not penalized, by QR.
func icptOracle(p problem, train []int, xs *mat.Dense, lambda float64) *mat.Dense {
	x := oracle.Dense(p.x)
	m, d := x.Dims()
	ns, _ := xs.Dims()
	all := mat.NewDense(m+ns, d, nil) // the training data, then xs
	all.Slice(0, m, 0, d).(*mat.Dense).Copy(x)
	all.Slice(m, m+ns, 0, d).(*mat.Dense).Copy(xs)
	test := make([]int, ns)
	for i := range test {
		test[i] = m + i
	}
	k := oracleKernel(p.kern)
	yt := oracle.Rows(p.y, train)
	_, t := yt.Dims()
	n := len(train)
	// augmented least squares on the features F (rows train) and Fs (test)
	ls := func(f, fs *mat.Dense) *mat.Dense {
		_, r := f.Dims()
		a := mat.NewDense(n+r, r+1, nil)
		b := mat.NewDense(n+r, t, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < r; j++ {
				a.Set(i, j, f.At(i, j))
			}
			a.Set(i, r, 1)
			for c := 0; c < t; c++ {
				b.Set(i, c, yt.At(i, c))
			}
		}
		for j := 0; j < r; j++ {
			a.Set(n+j, j, math.Sqrt(lambda))
		}
		var w mat.Dense
		if err := w.Solve(a, b); err != nil {
			panic(err)
		}
		out := mat.NewDense(ns, t, nil)
		for i := 0; i < ns; i++ {
			for c := 0; c < t; c++ {
				v := w.At(r, c)
				for j := 0; j < r; j++ {
					v += fs.At(i, j) * w.At(j, c)
				}
				out.Set(i, c, v)
			}
		}
		return out
	}
	switch {
	case p.basis != nil:
		kbb := k.Gram(all, p.basis, p.basis)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(len(p.basis), kbb.RawMatrix().Data)) {
			panic("K_BB not positive definite in the oracle")
		}
		var l mat.TriDense
		ch.LTo(&l)
		phi := func(rows []int) *mat.Dense { // K_{rows,B} L⁻ᵀ: L Φᵀ = K_{rows,B}ᵀ
			var out mat.Dense
			if err := out.Solve(&l, k.Gram(all, rows, p.basis).T()); err != nil {
				panic(err)
			}
			return mat.DenseCopyOf(out.T())
		}
		return ls(phi(train), phi(test))
	case isLinearPrimal(p, n):
		return ls(oracle.WithBias(oracle.Rows(all, train), k.Bias), oracle.WithBias(xs, k.Bias))
	default:
		sys := mat.NewDense(n+1, n+1, nil)
		sys.Slice(0, n, 0, n).(*mat.Dense).Copy(k.Gram(all, train, train))
		for i := 0; i < n; i++ {
			sys.Set(i, i, sys.At(i, i)+lambda)
			sys.Set(i, n, 1)
			sys.Set(n, i, 1)
		}
		rhs := mat.NewDense(n+1, t, nil)
		rhs.Slice(0, n, 0, t).(*mat.Dense).Copy(yt)
		ab := oracle.RefinedSolve(sys, rhs)
		out := mat.NewDense(ns, t, nil)
		out.Mul(k.Gram(all, test, train), ab.Slice(0, n, 0, t))
		for i := 0; i < ns; i++ {
			for c := 0; c < t; c++ {
				out.Set(i, c, out.At(i, c)+ab.At(n, c))
			}
		}
		return out
	}
}

// icptRefit is icptOracle predicting the rows test of the problem's data.
func icptRefit(p problem, train, test []int, lambda float64) *mat.Dense {
	return icptOracle(p, train, oracle.Rows(oracle.Dense(p.x), test), lambda)
}

// fitIcpt fits the problem with an unpenalized intercept.
func fitIcpt(t *testing.T, p problem) *RLS {
	t.Helper()
	r, err := Fit(p.x, p.y, Options{Kernel: p.kern, Form: p.form, Basis: p.basis, Intercept: true})
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	if !r.HasIntercept() {
		t.Fatalf("%s: Fit with Intercept has none", p.name)
	}
	return r
}

// The tolerances are those of the oracle comparisons without an intercept
// (tolerance, with TestToleranceMeaningful: at most 1e-8 from λ = 1 on, so a
// 1e-7 error fails there). The bound carries over: the intercept replaces
// A = λ(K̃ + λI)⁻¹ by Â = A − vvᵀ/s = λĜ, and Ĝ ⪯ G (a positive
// semidefinite rank-one term is subtracted), so a perturbation δK of the
// kernel moves Â by at most ‖δK‖/λ, as it moves A; the oracle's augmented
// systems are as well conditioned as the plain ones (the dual's bordered
// matrix has the same eigenvalues but one, the least squares one more
// unpenalized column, the constant, which is not in the span of the other
// columns at the sizes drawn).

// fewRowsTolerance is the tolerance of a hold-out that leaves fewer rows
// than the rank of a low-rank factor: the dual form's bound
// max(1e-8, 100·ε·trace(K)/λ) for every form. With n̄ < r rows left the
// Woodbury system D⁻¹ − U_HᵀU_H = U_H̄ᵀU_H̄ + diag(λ/e) has eigenvalues down
// to λ/e_max, so the ε-rounding of its entries (formed as 1 + λ/e − U_HᵀU_H)
// is amplified by up to e_max/λ ≤ trace(K)/λ — the same amplification as the
// dual's, and without an intercept too (measured: 3.7e-8 at λ = 1e-6 for
// the plain model, 5.0e-8 with the intercept, both far below the bound's
// 1e-6). From λ = 1 on it is 1e-8, as TestToleranceMeaningful asserts.
func fewRowsTolerance(p problem, lambda float64) float64 {
	q := p
	q.form = learn.Dual
	return tolerance(q, lambda)
}

// The intercept tests' tolerances can fail: for the problems of their seeds
// (31–35), from λ = 1 on tolerance and fewRowsTolerance are 1e-8 — a 1e-7
// error fails there — and below 1e-2 at every λ.
func TestInterceptToleranceMeaningful(t *testing.T) {
	for seed := uint64(31); seed <= 35; seed++ {
		for _, p := range problems(rand.New(rand.NewPCG(seed, seed))) {
			for _, lambda := range lambdas {
				for name, tol := range map[string]float64{"tolerance": tolerance(p, lambda), "fewRowsTolerance": fewRowsTolerance(p, lambda)} {
					if tol >= 1e-2 || lambda >= 1 && tol > 1e-8 {
						t.Errorf("seed %d %s λ=%g: %s %.1e", seed, p.name, lambda, name, tol)
					}
				}
			}
		}
	}
}

// The model on the training rows, its predictor on them and on fresh
// points, and its intercept equal the refit with intercept, for every
// problem (dual, linear and sparse forms; 1 and 3 outputs; dense and sparse
// data) at every λ of 1e-6 … 1e4.
func TestInterceptFitEqualsRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	fresh := rand.New(rand.NewPCG(131, 1))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fitIcpt(t, p)
			m, _ := p.y.Dims()
			all := allRows(m)
			xnew := freshRows(fresh, 7, p)
			for _, lambda := range lambdas {
				s, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				tol := tolerance(p, lambda)
				want := icptRefit(p, all, all, lambda)
				if e := relErr(s.Fitted(), want); e > tol {
					t.Errorf("λ=%g: fitted values rel. error %.2e (tolerance %.1e)", lambda, e, tol)
				}
				pred := s.Predictor()
				got, err := pred.Predict(p.x)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(got, want); e > tol {
					t.Errorf("λ=%g: predictor on the training rows rel. error %.2e", lambda, e)
				}
				got, err = pred.Predict(xnew)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(got, icptOracle(p, all, oracle.Dense(xnew), lambda)); e > tol {
					t.Errorf("λ=%g: predictions at fresh points rel. error %.2e", lambda, e)
				}
				// b is optimal: the residuals sum to zero (1ᵀÂ = 0), to rounding
				if len(s.Intercept()) != p.y.RawMatrix().Cols {
					t.Fatalf("intercept of %d values", len(s.Intercept()))
				}
				res := s.Residuals()
				for c := range s.Intercept() {
					col := mat.Col(nil, c, res)
					sum, norm := 0.0, 0.0
					for _, v := range col {
						sum, norm = sum+v, norm+v*v
					}
					if math.Abs(sum) > tol*math.Sqrt(float64(m)*norm) {
						t.Errorf("λ=%g output %d: the residuals sum to %.2e (norm %.2e)", lambda, c, sum, math.Sqrt(norm))
					}
				}
			}
		})
	}
}

func TestInterceptLeaveOneOutEqualsRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fitIcpt(t, p)
			m, tt := p.y.Dims()
			for _, lambda := range lambdas {
				s, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				got := loo(t, s)
				want := mat.NewDense(m, tt, nil)
				for i := 0; i < m; i++ {
					want.SetRow(i, icptRefit(p, complementRows([]int{i}, m), []int{i}, lambda).RawRowView(0))
				}
				if e, tol := relErr(got, want), tolerance(p, lambda); e > tol {
					t.Errorf("λ=%g: LOO rel. error %.2e (tolerance %.1e)", lambda, e, tol)
				}
			}
		})
	}
}

// Hold-outs of 1, 2, 3, m/3, m/2 and m − 2 rows (the last two above the
// rank of the low-rank factors: the Woodbury path with v_H as a column),
// and k-fold through HoldOutPath, against refitting f and b on the rest.
func TestInterceptHoldOutEqualsRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 33))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fitIcpt(t, p)
			m, _ := p.y.Dims()
			for _, size := range []int{1, 2, 3, m / 3, m / 2, m - 2} {
				if size < 1 {
					continue
				}
				h := rng.Perm(m)[:size]
				for _, lambda := range lambdas {
					s, err := r.Solve(lambda)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.HoldOut(h)
					if err != nil {
						t.Fatal(err)
					}
					tol := tolerance(p, lambda)
					if size == m-2 {
						tol = fewRowsTolerance(p, lambda)
					}
					if e := relErr(got, icptRefit(p, complementRows(h, m), h, lambda)); e > tol {
						t.Errorf("|H|=%d λ=%g: hold-out rel. error %.2e (tolerance %.1e)", size, lambda, e, tol)
					}
				}
			}
			// 4-fold (and a single-row fold) through the one-pass path
			perm := rng.Perm(m)
			folds := [][]int{perm[:1]}
			for k := 0; k < 4; k++ {
				folds = append(folds, perm[1+k*(m-1)/4:1+(k+1)*(m-1)/4])
			}
			grid := lambdas
			n := 0
			err := r.HoldOutPath(folds, grid, func(l int, pr *mat.Dense) error {
				n++
				tol := tolerance(p, grid[l])
				for _, f := range folds {
					got := oracle.Rows(pr, f)
					if e := relErr(got, icptRefit(p, complementRows(f, m), f, grid[l])); e > tol {
						t.Errorf("HoldOutPath λ=%g fold of %d: rel. error %.2e (tolerance %.1e)", grid[l], len(f), e, tol)
					}
				}
				return nil
			})
			if err != nil || n != len(grid) {
				t.Fatalf("HoldOutPath: %v, %d of %d λ visited", err, n, len(grid))
			}
		})
	}
}

func TestInterceptLeavePairOutEqualsRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 34))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fitIcpt(t, p)
			m, _ := p.y.Dims()
			var few, all []learn.Pair // the per-pair path and the path that forms A once
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
						if len(pairs) > 20 && n%11 != 0 {
							continue // a sample of the many pairs
						}
						want := icptRefit(p, complementRows([]int{pr.I, pr.J}, m), []int{pr.I, pr.J}, lambda)
						got := mat.NewDense(2, want.RawMatrix().Cols, nil)
						got.SetRow(0, pi.RawRowView(n))
						got.SetRow(1, pj.RawRowView(n))
						if e := relErr(got, want); e > tol {
							t.Fatalf("pair %v λ=%g (%d pairs): rel. error %.2e (tolerance %.1e)", pr, lambda, len(pairs), e, tol)
						}
					}
				}
			}
		})
	}
}

// The one-pass λ path (SolvePath, AtGrid in chunks of a few rows) gives
// Solve's residuals, diagonal, intercept and LOO with the intercept, to
// rounding, and those equal the refit.
func TestInterceptPathEqualsSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 35))
	for _, p := range problems(rng) {
		t.Run(p.name, func(t *testing.T) {
			r := fitIcpt(t, p)
			smallBlocks(t, r, 3)
			sols, err := r.SolvePath(lambdas)
			if err != nil {
				t.Fatal(err)
			}
			at := r.AtGrid(lambdas)
			m, tt := p.y.Dims()
			for l, lambda := range lambdas {
				s, err := r.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				g, err := at(lambda)
				if err != nil {
					t.Fatal(err)
				}
				tol := tolerance(p, lambda)
				for name, q := range map[string]*Solution{"SolvePath": sols[l], "AtGrid": g.(*Solution)} {
					if e := relErr(q.Residuals(), s.Residuals()); e > tol {
						t.Errorf("%s λ=%g: residuals rel. error %.2e", name, lambda, e)
					}
					if e := relErr(mat.NewDense(1, tt, q.Intercept()), mat.NewDense(1, tt, s.Intercept())); e > tol {
						t.Errorf("%s λ=%g: intercept %v, Solve's %v", name, lambda, q.Intercept(), s.Intercept())
					}
					if e := relErr(mat.NewDense(1, m, q.diag), mat.NewDense(1, m, s.diag)); e > tol {
						t.Errorf("%s λ=%g: diagonal rel. error %.2e", name, lambda, e)
					}
					want := mat.NewDense(m, tt, nil)
					for i := 0; i < m; i += 5 {
						want.SetRow(i, icptRefit(p, complementRows([]int{i}, m), []int{i}, lambda).RawRowView(0))
					}
					got := loo(t, q)
					for i := 0; i < m; i++ {
						if i%5 != 0 {
							got.SetRow(i, make([]float64, tt))
						}
					}
					if e := relErr(got, want); e > tol {
						t.Errorf("%s λ=%g: LOO (every 5th row) rel. error %.2e", name, lambda, e)
					}
				}
			}
		})
	}
}

// Sparse hold-outs that remove the held-out basis vectors (both of
// HoldOutBasis's paths: few and most of the basis removed) equal refitting
// f and b on the rest with the rest of the basis; keep equals HoldOut.
func TestInterceptHoldOutBasisEqualsRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 36))
	for _, sh := range [][3]int{{30, 4, 1}, {24, 3, 3}} {
		m, d, tt := sh[0], sh[1], sh[2]
		for _, sparse := range []bool{false, true} {
			x, y := randProblem(rng, m, d, tt, sparse)
			n := m / 3
			perm := rng.Perm(m)
			basis, others := perm[:n], perm[n:]
			p := problem{x: x, y: y, kern: kernel.Gaussian{Gamma: 1 / float64(d)}, form: learn.Sparse, basis: basis}
			r := fitIcpt(t, p)
			holdOuts := map[string][]int{
				"no basis":          others[:3],
				"one basis":         {basis[0]},
				"some basis":        append(append([]int{}, basis[:2]...), others[:4]...),
				"all but one basis": append(append([]int{}, basis[1:]...), others[0]),
				"half the rows":     perm[n-2 : n-2+m/2],
			}
			for name, h := range holdOuts {
				remaining := slices.DeleteFunc(slices.Clone(basis), func(b int) bool { return slices.Contains(h, b) })
				for _, lambda := range lambdas {
					s, err := r.Solve(lambda)
					if err != nil {
						t.Fatal(err)
					}
					label := fmt.Sprintf("m%d_t%d_sp%v %s λ=%g", m, tt, sparse, name, lambda)
					got, err := s.HoldOutBasis(h, learn.Remove)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					pr := p
					pr.basis = remaining
					if e := relErr(got, icptRefit(pr, complementRows(h, m), h, lambda)); e > 1e-8 {
						t.Errorf("%s: remove rel. error %.2e", label, e)
					}
					keep, err := s.HoldOutBasis(h, learn.Keep)
					if err != nil {
						t.Fatal(err)
					}
					if e := relErr(keep, icptRefit(p, complementRows(h, m), h, lambda)); e > 1e-8 {
						t.Errorf("%s: keep rel. error %.2e", label, e)
					}
				}
			}
		}
	}
}

// A constant added to the kernel (the linear kernel's bias) changes nothing
// with an intercept but rounding: the LOO predictions and the predictor of
// the linear kernel with bias 0 and bias 1 agree, in both forms.
func TestInterceptAbsorbsBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 37))
	x, y := randProblem(rng, 30, 4, 2, false)
	xnew := freshRows(rng, 5, problem{x: x})
	for _, form := range []learn.Form{learn.Dual, learn.Linear} {
		var loos, preds []*mat.Dense
		for _, bias := range []float64{0, 1} {
			r, err := Fit(x, y, Options{Kernel: kernel.Linear{Bias: bias}, Form: form, Intercept: true})
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.Solve(0.5)
			if err != nil {
				t.Fatal(err)
			}
			loos = append(loos, loo(t, s))
			pr, err := s.Predictor().Predict(xnew)
			if err != nil {
				t.Fatal(err)
			}
			preds = append(preds, pr)
		}
		if e := relErr(loos[1], loos[0]); e > 1e-10 {
			t.Errorf("form %d: LOO with bias 1 and bias 0 differ by %.2e", form, e)
		}
		if e := relErr(preds[1], preds[0]); e > 1e-10 {
			t.Errorf("form %d: predictions with bias 1 and bias 0 differ by %.2e", form, e)
		}
	}
}

// WithLabels and Perturbed keep the intercept; without Options.Intercept
// there is none (Intercept nil, the predictor's constant only the bias
// feature's).
func TestInterceptCarried(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 38))
	x, y := randProblem(rng, 20, 3, 1, false)
	r, err := Fit(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	y2 := mat.NewDense(20, 1, nil)
	y2.Scale(-2, y)
	r2, err := r.WithLabels(y2, nil)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := r.Perturbed(1)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.HasIntercept() || !pt.(*RLS).HasIntercept() {
		t.Fatal("WithLabels or Perturbed dropped the intercept")
	}
	s, _ := r.Solve(1)
	s2, _ := r2.Solve(1)
	if b, b2 := s.Intercept()[0], s2.Intercept()[0]; math.Abs(b2+2*b) > 1e-12*math.Abs(b) {
		t.Errorf("intercept of −2y is %v, want −2·%v", b2, b)
	}
	plain, err := Fit(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := plain.Solve(1)
	if plain.HasIntercept() || ps.Intercept() != nil || ps.Predictor().B != nil {
		t.Error("a model without Options.Intercept has an intercept")
	}
}

// The descriptor declares the intercept and refuses it with the
// conjugate-gradient form.
func TestInterceptDescriptor(t *testing.T) {
	d := Descriptor()
	if !d.Takes(learn.ParamIntercept) {
		t.Fatal("rls does not declare learn.ParamIntercept")
	}
	x, y := randProblem(rand.New(rand.NewPCG(39, 39)), 10, 2, 1, false)
	if _, err := d.New(&learn.Input{X: x, Y: y, Form: learn.Iterative, Intercept: true}); err == nil {
		t.Error("the conjugate-gradient form takes an intercept it would ignore")
	}
	meth, err := d.New(&learn.Input{X: x, Y: y, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := meth(learn.Setting{Kernel: kernel.Linear{}})
	if err != nil {
		t.Fatal(err)
	}
	if !l.(*RLS).HasIntercept() {
		t.Error("Input.Intercept did not reach Fit")
	}
}
