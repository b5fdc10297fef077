package stream

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// icOracle refits ridge regression with an unpenalized intercept directly on
// the rows it is given, sharing no code with the package: the training rows'
// features and labels are centred about their own means in float64, the
// p×p system (Z_cᵀZ_c + λR) w = Z_cᵀy_c formed from the centred rows and
// solved by a dense LU (R = I for the linear kernel; over a basis B the
// features are k(x, B), Gaussian, and R = K_BB: f(x) = Σ a_j k(x, b_j) + b
// with the penalty λ aᵀK_BB a), b = ȳ − μᵀw.
type icOracle struct {
	z, y [][]float64
	reg  *mat.Dense // K_BB over a basis; nil: I
}

func newICOracle(od orcData, basis []int, gamma float64) icOracle {
	o := icOracle{}
	for i, r := range od.rows {
		o.z = append(o.z, append([]float64(nil), od.x[i]...))
		o.y = append(o.y, r.Y)
	}
	if basis != nil {
		k := func(a, b []float64) float64 {
			d := 0.0
			for j := range a {
				d += (a[j] - b[j]) * (a[j] - b[j])
			}
			return math.Exp(-gamma * d)
		}
		o.reg = mat.NewDense(len(basis), len(basis), nil)
		for r, i := range basis {
			for c, j := range basis {
				o.reg.Set(r, c, k(od.x[i], od.x[j]))
			}
		}
		for i := range o.z {
			var f []float64
			for _, j := range basis {
				f = append(f, k(od.x[i], od.x[j]))
			}
			o.z[i] = f
		}
	}
	return o
}

// icFit is one training set's model at one λ, with what its tolerance is
// derived from: κ, the condition number of the solved matrix (times K_BB's
// over a basis: the package solves in K_BB^{-1/2} coordinates).
type icFit struct {
	w     *mat.Dense // p×t
	b, mu []float64
	kappa float64
}

func (o icOracle) fit(tr []int, lambda float64) icFit {
	p, t := len(o.z[0]), len(o.y[0])
	n := float64(len(tr))
	mu, ybar := make([]float64, p), make([]float64, t)
	for _, i := range tr {
		for j := range mu {
			mu[j] += o.z[i][j]
		}
		for c := range ybar {
			ybar[c] += o.y[i][c]
		}
	}
	for j := range mu {
		mu[j] /= n
	}
	for c := range ybar {
		ybar[c] /= n
	}
	a, rhs := mat.NewDense(p, p, nil), mat.NewDense(p, t, nil)
	zc := make([]float64, p)
	for _, i := range tr {
		for j := range zc {
			zc[j] = o.z[i][j] - mu[j]
		}
		for j := range zc {
			for k := range zc {
				a.Set(j, k, a.At(j, k)+zc[j]*zc[k])
			}
			for c := 0; c < t; c++ {
				rhs.Set(j, c, rhs.At(j, c)+zc[j]*(o.y[i][c]-ybar[c]))
			}
		}
	}
	for j := 0; j < p; j++ {
		for k := 0; k < p; k++ {
			r := 0.0
			if o.reg != nil {
				r = o.reg.At(j, k)
			} else if j == k {
				r = 1
			}
			a.Set(j, k, a.At(j, k)+lambda*r)
		}
	}
	f := icFit{mu: mu, b: make([]float64, t), kappa: cond(a)}
	if o.reg != nil {
		f.kappa *= cond(o.reg)
	}
	var w mat.Dense
	if err := w.Solve(a, rhs); err != nil {
		panic(err)
	}
	f.w = &w
	for c := range f.b {
		f.b[c] = ybar[c]
		for j := range mu {
			f.b[c] -= mu[j] * w.At(j, c)
		}
	}
	return f
}

// cond is the 2-norm condition number of a symmetric positive definite a.
func cond(a *mat.Dense) float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(a.RawMatrix().Rows, mat.DenseCopyOf(a).RawMatrix().Data), false) {
		panic("eigen")
	}
	v := es.Values(nil)
	return v[len(v)-1] / math.Max(v[0], 1e-300)
}

// predict is f(z_i) and the magnitude of its terms, |ȳ| + Σ_j |(z_ij − μ_j) w_j|.
func (o icOracle) predict(f icFit, i int) (pred, scale []float64) {
	t := len(f.b)
	pred, scale = make([]float64, t), make([]float64, t)
	for c := 0; c < t; c++ {
		pred[c] = f.b[c]
		ybar := f.b[c]
		for j, v := range o.z[i] {
			pred[c] += v * f.w.At(j, c)
			ybar += f.mu[j] * f.w.At(j, c)
			scale[c] += math.Abs((v - f.mu[j]) * f.w.At(j, c))
		}
		scale[c] += math.Abs(ybar)
	}
	return pred, scale
}

// leverage is row i's leverage in the model of every row at λ, with the
// intercept: 1/n + (z_i − μ)ᵀ(Z_cᵀZ_c + λR)⁻¹(z_i − μ).
func (o icOracle) leverage(all []int, i int, lambda float64) float64 {
	p := len(o.z[0])
	f := o.fit(all, lambda) // for μ
	a := mat.NewDense(p, p, nil)
	zc := make([]float64, p)
	for _, r := range all {
		for j := range zc {
			zc[j] = o.z[r][j] - f.mu[j]
		}
		for j := range zc {
			for k := range zc {
				a.Set(j, k, a.At(j, k)+zc[j]*zc[k])
			}
		}
	}
	for j := 0; j < p; j++ {
		for k := 0; k < p; k++ {
			r := 0.0
			if o.reg != nil {
				r = o.reg.At(j, k)
			} else if j == k {
				r = 1
			}
			a.Set(j, k, a.At(j, k)+lambda*r)
		}
	}
	for j := range zc {
		zc[j] = o.z[i][j] - f.mu[j]
	}
	var x mat.VecDense
	if err := x.SolveVec(a, mat.NewVecDense(p, zc)); err != nil {
		panic(err)
	}
	return 1/float64(len(all)) + mat.Dot(&x, mat.NewVecDense(p, zc))
}

// icTolerance is the tolerance of a prediction whose terms have magnitude
// scale, from a system of condition number κ: a backward-stable solve of
// the p×p system moves w by about κ·p·ε relative to it (Higham 2002,
// Thm 7.2, with the normal equations' own rounding of the same order), and
// leave-one-out's shortcut divides the residual by 1 − h_i (the row's
// leverage), magnifying that error by 1/(1 − h_i). The factor 32 covers the
// two solves compared (the package's and the oracle's) and the sums.
func icTolerance(p int, kappa, scale, h float64) float64 {
	return 32 * float64(p+1) * 2.220446049250313e-16 * kappa * scale / (1 - h)
}

// TestInterceptEqualsCentredRidge holds the streamed unpenalized intercept
// (Options.Intercept) to icOracle, ridge refit on each hold-out's training
// rows about their own means — under leave-one-out (the leverage shortcut),
// k-fold (the fold's moments subtracted; the mse curve from the moments
// without a prediction pass, the mae curve from the predictions), few and
// many groups left out, no cross-validation, multi-output, a width close to
// the number of rows (the training sets' scatter singular), sparse rows, a
// bias feature given beside the intercept (its weight 0) and a Gaussian
// basis — for λ from 1e-6 to 1e4. Every hold-out prediction, the curve
// and the final model's predictions are held to icTolerance, stated per
// prediction from the training set's condition number; at λ = 1e4 the
// tolerance is below 1e-9 of the predictions in every case (checked), so
// an error of 1e-7 relative fails the test there.
func TestInterceptEqualsCentredRidge(t *testing.T) {
	lambdas := []float64{1e-6, 1e-3, 1, 1e2, 1e4}
	type tc struct {
		name      string
		cv        string
		meas      string
		m, d, t   int
		groups    int
		sparse    bool
		bias      float64
		basisRows []int
		lambdas   []float64
	}
	cases := []tc{
		{"loo/tall", "loo", "mae", 60, 3, 1, 4, false, 0, nil, lambdas},
		{"loo/tall/mse", "loo", "mse", 60, 3, 2, 4, false, 0, nil, lambdas},
		{"kfold5/t3/mse", "kfold:5", "mse", 60, 3, 3, 4, false, 0, nil, lambdas},
		{"kfold5/t3/mae", "kfold:5", "mae", 60, 3, 3, 4, false, 0, nil, lambdas},
		{"kfold4/wide", "kfold:4", "mae", 24, 20, 2, 4, false, 0, nil, lambdas},
		{"kfold4/wide/mse", "kfold:4", "mse", 24, 20, 1, 4, false, 0, nil, lambdas},
		{"loo/wide", "loo", "mae", 24, 20, 2, 4, false, 0, nil, lambdas},
		{"lgo/few", "lgo", "mae", 40, 4, 1, 5, false, 0, nil, lambdas},
		{"lgo/few/mse", "lgo", "mse", 40, 4, 2, 5, false, 0, nil, lambdas},
		{"lgo/many", "lgo", "mae", 200, 3, 2, 100, false, 0, nil, lambdas},
		{"kfold3/sparse", "kfold:3", "mae", 50, 5, 1, 4, true, 0, nil, lambdas},
		{"loo/sparse", "loo", "mae", 50, 5, 1, 4, true, 0, nil, lambdas},
		{"kfold3/bias1", "kfold:3", "mae", 45, 3, 2, 4, false, 1, nil, lambdas},
		{"loo/bias2.5", "loo", "mae", 45, 3, 1, 4, false, 2.5, nil, lambdas},
		{"kfold3/basis", "kfold:3", "mae", 45, 3, 1, 4, false, 0, []int{3, 0, 11, 7, 20}, []float64{1e-3, 1, 1e2, 1e4}},
		{"loo/basis", "loo", "mae", 45, 3, 1, 4, false, 0, []int{3, 0, 11, 7, 20}, []float64{1e-3, 1, 1e2, 1e4}},
		{"none", "none", "mse", 30, 3, 2, 4, false, 0, nil, []float64{0.5}},
	}
	for n, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			od := orcDraw(uint64(500+n), c.m, c.d, c.t, c.groups, c.sparse)
			for i := range od.rows { // a large constant in the labels: the intercept has work to do
				for k := range od.rows[i].Y {
					od.rows[i].Y[k] += 40 + 10*float64(k)
				}
			}
			meas, err := measure.ByName(c.meas)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: 7,
				Lambdas: c.lambdas, Measure: meas, Intercept: true}
			const gamma = 0.3
			if c.basisRows != nil {
				opt.Kernel, opt.BasisRows = kernel.Spec{Name: "gaussian", Gamma: gamma}, c.basisRows
			}
			res, preds := orcRun(t, opt, od, 7)
			o := newICOracle(od, c.basisRows, gamma)
			p := len(o.z[0])
			all := make([]int, c.m)
			for i := range all {
				all[i] = i
			}
			full := make([]icFit, len(c.lambdas))
			for l, lambda := range c.lambdas {
				full[l] = o.fit(all, lambda)
			}

			// hold-out predictions and their tolerances
			kind, k := c.cv, 0
			if _, err := fmt.Sscanf(c.cv, "kfold:%d", &k); err == nil {
				kind = "kfold"
			}
			want := make([]*mat.Dense, len(c.lambdas))
			tol := make([]*mat.Dense, len(c.lambdas))
			for l := range want {
				want[l], tol[l] = mat.NewDense(c.m, c.t, nil), mat.NewDense(c.m, c.t, nil)
			}
			if c.cv != "none" {
				for _, h := range (orcOracle{loss: learn.Squared}).holdOuts(kind, k, 7, od.rows) {
					if len(h) == 0 {
						continue
					}
					in := map[int]bool{}
					for _, i := range h {
						in[i] = true
					}
					var tr []int
					for _, i := range all {
						if !in[i] {
							tr = append(tr, i)
						}
					}
					for l, lambda := range c.lambdas {
						f := o.fit(tr, lambda)
						kappa := math.Max(f.kappa, full[l].kappa)
						for _, i := range h {
							lev := 0.0
							if kind == "loo" {
								lev = o.leverage(all, i, lambda)
							}
							pred, scale := o.predict(f, i)
							want[l].SetRow(i, pred)
							for cc := range scale {
								tol[l].Set(i, cc, icTolerance(p, kappa, scale[cc], lev))
							}
						}
					}
				}
			}
			worst := 0.0 // the largest error as a share of its tolerance
			check := func(what string, got, w, tl float64) {
				if !(math.Abs(got-w) <= tl) {
					t.Errorf("%s: %.15g, refit %.15g (difference %.3g, tolerance %.3g)", what, got, w, math.Abs(got-w), tl)
				}
				if tl > 0 {
					worst = math.Max(worst, math.Abs(got-w)/tl)
				}
			}
			if c.cv != "none" {
				// the tolerance is meaningful: below 1e-9 of the predictions at λ = 1e4
				last := len(c.lambdas) - 1
				if r := mat.Max(tol[last]) / mat.Norm(want[last], math.Inf(1)); !(r < 1e-9) {
					t.Fatalf("tolerance at λ = %g is %.3g of the predictions: too loose to catch 1e-7", c.lambdas[last], r)
				}
				if c.meas != "mse" && len(preds) != c.m {
					t.Fatalf("%d predictions for %d rows", len(preds), c.m)
				}
				byY := map[float64]int{}
				for i, r := range od.rows {
					byY[r.Y[0]] = i
				}
				for _, pr := range preds {
					i, ok := byY[pr.Y[0]]
					if !ok {
						t.Fatalf("a prediction of labels %v no row has", pr.Y)
					}
					for l, lambda := range c.lambdas {
						for cc := 0; cc < c.t; cc++ {
							check(fmt.Sprintf("row %d, λ = %g, output %d", i, lambda, cc), pr.P[l*c.t+cc], want[l].At(i, cc), tol[l].At(i, cc))
						}
					}
				}
				// the curve: |Δ mean r²| ≤ mean(2|r|·tol + tol²), |Δ mean |r|| ≤ mean tol
				for l, lambda := range c.lambdas {
					v, ctol := 0.0, 0.0
					for i := range all {
						for cc := 0; cc < c.t; cc++ {
							r, tl := od.rows[i].Y[cc]-want[l].At(i, cc), tol[l].At(i, cc)
							if c.meas == "mse" {
								v += r * r
								ctol += 2*math.Abs(r)*tl + tl*tl
							} else {
								v += math.Abs(r)
								ctol += tl
							}
						}
					}
					v /= float64(c.m * c.t)
					ctol /= float64(c.m * c.t)
					check(fmt.Sprintf("%s at λ = %g", c.meas, lambda), res.Curve[l].Value, v, ctol+1e-15*v)
				}
			}

			// the final model, refit on every row at the chosen λ
			bi := res.BestIndex
			if res.Predictor.B == nil {
				t.Fatal("the model has no intercept")
			}
			got, err := res.Predictor.Predict(orcChunk(od.rows, od.sparse, c.d).X)
			if err != nil {
				t.Fatal(err)
			}
			for i := range all {
				pred, scale := o.predict(full[bi], i)
				for cc := range pred {
					check(fmt.Sprintf("final model at λ = %g, row %d output %d", c.lambdas[bi], i, cc), got.At(i, cc), pred[cc], icTolerance(p, full[bi].kappa, scale[cc], 0))
				}
			}
			t.Logf("largest difference %.3g of its tolerance", worst)
		})
	}
}

// TestInterceptRefusedByRankers: the pairwise losses cancel any constant,
// so a plan of a ranker with Intercept is ErrOptions naming the learner.
func TestInterceptRefusedByRankers(t *testing.T) {
	mse, _ := measure.ByName("mse")
	for _, le := range []learn.Name{learn.GlobalRank, learn.QueryRank} {
		_, err := NewPlan(Options{Learner: le, Kernel: kernel.Spec{Name: "linear"}, CV: "loo", Lambdas: []float64{1}, Measure: mse, Intercept: true})
		if err == nil || !errors.Is(err, ErrOptions) {
			t.Errorf("%s with an intercept: %v, want ErrOptions", le, err)
		}
	}
}
