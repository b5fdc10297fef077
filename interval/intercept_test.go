package interval_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rls"
)

// TestIntervalsIntercept: with an unpenalized intercept (rls.Options.
// Intercept) each hold-out model refits its intercept on the kept rows —
// checked against a direct bordered solve per fold: the linear form
// (bias 0) by the normal equations of [X, 1] with the penalty diag(λI, 0)
// (jackknife+), and the dual gaussian with sample weights by the weighted
// LS-SVM system [K_TT + λW_T⁻¹, 1; 1ᵀ, 0][a; b] = [y_T; 0] (CV+, 4 folds)
// — and the intervals of New and of NewFromCV equal those of the refit
// models to 1e-8 of max|y|, two outputs. HoldOutModelsGiven accepts the
// refit models' own hold-out predictions (the intercept's bound) and
// refuses them with one moved by 1e-6·max|y|.
func TestIntervalsIntercept(t *testing.T) {
	const m, mt, d, nOut = 26, 5, 2, 2
	rng := rand.New(rand.NewPCG(9, 9))
	xAll, yAll := oracle.Data(rng, m+mt, d, nOut, false, 0, oracle.Smooth)
	for i := 0; i < m; i++ { // an offset the intercept must take
		yAll.Set(i, 0, yAll.At(i, 0)+3)
		yAll.Set(i, 1, yAll.At(i, 1)-2)
	}
	x, y := mat.DenseCopyOf(xAll.Slice(0, m, 0, d)), mat.DenseCopyOf(yAll.Slice(0, m, 0, nOut))
	xt := mat.DenseCopyOf(xAll.Slice(m, m+mt, 0, d))
	w := make([]float64, m)
	for i := range w {
		w[i] = math.Exp(2*rng.Float64() - 1)
	}
	perm := rng.Perm(m)
	folds := [][]int{perm[:6], perm[6:12], perm[12:19], perm[19:]}
	scale := mat.Norm(y, math.Inf(1))
	for _, c := range []struct {
		name    string
		form    learn.Form
		kern    kernel.Kernel
		weights []float64
		method  string
	}{
		{"linear jackknife+", learn.Linear, kernel.Linear{}, nil, model.JackknifePlus},
		{"dual gaussian weighted cv+", learn.Dual, kernel.Gaussian{Gamma: 0.5}, w, model.CVPlus},
	} {
		const lambda = 0.4
		r, err := rls.Fit(x, y, rls.Options{Kernel: c.kern, Form: c.form, Weights: c.weights, Intercept: true})
		if err != nil {
			t.Fatal(err)
		}
		sol, _ := r.Solve(lambda)
		fs := folds
		if c.method == model.JackknifePlus {
			fs = nil
		}
		bf := fs
		if bf == nil {
			for i := 0; i < m; i++ {
				bf = append(bf, []int{i})
			}
		}
		fold := make([]int, m)
		res := mat.NewDense(m, nOut, nil)
		mu := make([]*mat.Dense, len(bf))
		cv := mat.NewDense(m, nOut, nil)
		for k, s := range bf {
			var keep []int
			for i := 0; i < m; i++ {
				if !slices.Contains(s, i) {
					keep = append(keep, i)
				}
			}
			pred := borderedRefit(c.kern, xAll, y, c.weights, keep, append(slices.Clone(s), testIdx(m, mt)...), lambda)
			for a, i := range s {
				fold[i] = k
				for o := 0; o < nOut; o++ {
					res.Set(i, o, math.Abs(y.At(i, o)-pred.At(a, o)))
					cv.Set(i, o, pred.At(a, o))
				}
			}
			mu[k] = mat.DenseCopyOf(pred.Slice(len(s), len(s)+mt, 0, nOut))
		}
		for _, variant := range []string{"New", "NewFromCV"} {
			p := sol.Predictor()
			var iv *model.Interval
			if variant == "New" {
				iv, err = interval.New(p, sol, y, c.method, fs)
			} else {
				if _, gerr := sol.HoldOutModelsGiven(bf, cv); gerr != nil {
					t.Errorf("%s: the refit's own predictions are refused: %v", c.name, gerr)
				}
				bad := mat.DenseCopyOf(cv)
				bad.Set(bf[0][0], 0, bad.At(bf[0][0], 0)+1e-6*scale)
				if _, gerr := sol.HoldOutModelsGiven(bf, bad); !errors.Is(gerr, rls.ErrHoldOutMismatch) {
					t.Errorf("%s: a prediction moved by 1e-6·max|y| is accepted (%v)", c.name, gerr)
				}
				iv, err = interval.NewFromCV(p, sol, y, c.method, fs, cv)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, variant, err)
			}
			p.Interval = iv
			_, lo, hi, err := p.PredictInterval(xt, 0.8)
			if err != nil {
				t.Fatal(err)
			}
			for j := 0; j < mt; j++ {
				for o := 0; o < nOut; o++ {
					wl, wh := bruteIntervalCol(mu, j, o, fold, res, level{4, 5})
					if e := math.Max(math.Abs(lo.At(j, o)-wl), math.Abs(hi.At(j, o)-wh)) / scale; !(e <= 1e-8) {
						t.Errorf("%s %s row %d output %d: [%v, %v], want [%v, %v]", c.name, variant, j, o, lo.At(j, o), hi.At(j, o), wl, wh)
					}
				}
			}
		}
	}
}

// bruteIntervalCol is bruteInterval for output o of test row j.
func bruteIntervalCol(mu []*mat.Dense, j, o int, fold []int, res *mat.Dense, l level) (float64, float64) {
	muj := make([]float64, len(mu))
	for k := range mu {
		muj[k] = mu[k].At(j, o)
	}
	r := make([]float64, len(fold))
	for i := range r {
		r[i] = res.At(i, o)
	}
	return bruteInterval(muj, fold, r, l)
}

// borderedRefit trains RLS with an unpenalized intercept (and sample
// weights w, nil: all 1) on the rows keep and predicts the rows pred: the
// linear kernel with bias 0 by the weighted normal equations of [X, 1]
// with the penalty diag(λI, 0); another kernel by [K_TT + λW⁻¹, 1; 1ᵀ, 0].
func borderedRefit(k kernel.Kernel, xAll, y *mat.Dense, w []float64, keep, pred []int, lambda float64) *mat.Dense {
	s := k.Spec()
	wt := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	n := len(keep)
	_, t := y.Dims()
	_, d := xAll.Dims()
	if s.Name == "linear" {
		a := mat.NewDense(d+1, d+1, nil)
		rhs := mat.NewDense(d+1, t, nil)
		for _, i := range keep {
			f := append(slices.Clone(xAll.RawRowView(i)), 1)
			for p := range f {
				for q := range f {
					a.Set(p, q, a.At(p, q)+wt(i)*f[p]*f[q])
				}
				for c := 0; c < t; c++ {
					rhs.Set(p, c, rhs.At(p, c)+wt(i)*f[p]*y.At(i, c))
				}
			}
		}
		for p := 0; p < d; p++ {
			a.Set(p, p, a.At(p, p)+lambda)
		}
		var beta mat.Dense
		if err := beta.Solve(a, rhs); err != nil {
			panic(err)
		}
		out := mat.NewDense(len(pred), t, nil)
		for a2, i := range pred {
			f := append(slices.Clone(xAll.RawRowView(i)), 1)
			for c := 0; c < t; c++ {
				v := 0.0
				for p := range f {
					v += f[p] * beta.At(p, c)
				}
				out.Set(a2, c, v)
			}
		}
		return out
	}
	ok := oracle.Kernel{Name: s.Name, Gamma: s.Gamma, Bias: s.Bias}
	ktt := ok.Gram(xAll, keep, keep)
	sys := mat.NewDense(n+1, n+1, nil)
	rhs := mat.NewDense(n+1, t, nil)
	for a, i := range keep {
		for b := range keep {
			sys.Set(a, b, ktt.At(a, b))
		}
		sys.Set(a, a, sys.At(a, a)+lambda/wt(i))
		sys.Set(a, n, 1)
		sys.Set(n, a, 1)
		for c := 0; c < t; c++ {
			rhs.Set(a, c, y.At(i, c))
		}
	}
	var sol mat.Dense
	if err := sol.Solve(sys, rhs); err != nil {
		panic(err)
	}
	out := mat.NewDense(len(pred), t, nil)
	out.Mul(ok.Gram(xAll, pred, keep), sol.Slice(0, n, 0, t))
	for a := range pred {
		for c := 0; c < t; c++ {
			out.Set(a, c, out.At(a, c)+sol.At(n, c))
		}
	}
	return out
}
