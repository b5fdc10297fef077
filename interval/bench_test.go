package interval_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rls"
)

// benchProblem is m training and mt test rows of d features, a gaussian
// rls fit at λ = 1 (dual form), and K folds of the training rows.
func benchProblem(b *testing.B, m, mt, d, k int, form learn.Form, kern kernel.Kernel) (*mat.Dense, *mat.Dense, *mat.Dense, *rls.Solution, [][]int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	xAll, yAll := oracle.Data(rng, m+mt, d, 1, false, 0, oracle.Smooth)
	x, y := mat.DenseCopyOf(xAll.Slice(0, m, 0, d)), mat.DenseCopyOf(yAll.Slice(0, m, 0, 1))
	xt := mat.DenseCopyOf(xAll.Slice(m, m+mt, 0, d))
	r, err := rls.Fit(x, y, rls.Options{Kernel: kern, Form: form})
	if err != nil {
		b.Fatal(err)
	}
	sol, err := r.Solve(1)
	if err != nil {
		b.Fatal(err)
	}
	folds := make([][]int, k)
	for i, j := range rng.Perm(m) {
		folds[j%k] = append(folds[j%k], i)
	}
	return x, y, xt, sol, folds
}

// BenchmarkCVPlus: the K = 10 fold models and residuals of CV+ after a
// gaussian fit at m = 2000 (d = 10), by the shortcut (interval.New on the
// factorization the fit made anyway; NewFromCV also given the CV
// predictions the search computed) and by refitting each fold model as a
// tool without the shortcut must: its kernel matrix on the 1800 kept rows,
// a Cholesky solve of (K_TT + λI)a = y_T (linalg.SolveSPD, the same BLAS
// as rlskit's), and the predictions of the 200 held-out rows.
func BenchmarkCVPlus(b *testing.B) {
	const m, d, k = 2000, 10, 10
	kern := kernel.Gaussian{Gamma: 0.1}
	x, y, _, sol, folds := benchProblem(b, m, 1, d, k, learn.Dual, kern)
	b.Run("shortcut", func(b *testing.B) {
		p := sol.Predictor()
		for b.Loop() {
			if _, err := interval.New(p, sol, y, model.CVPlus, folds); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shortcut-from-cv", func(b *testing.B) {
		p := sol.Predictor()
		cv := mat.NewDense(m, 1, nil) // what the cross-validation computed at λ
		for _, s := range folds {
			h, err := sol.HoldOut(s)
			if err != nil {
				b.Fatal(err)
			}
			for a, i := range s {
				cv.Set(i, 0, h.At(a, 0))
			}
		}
		for b.Loop() {
			if _, err := interval.NewFromCV(p, sol, y, model.CVPlus, folds, cv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("refit", func(b *testing.B) {
		for b.Loop() {
			for _, s := range folds {
				in := make([]bool, m)
				for _, i := range s {
					in[i] = true
				}
				var keep []int
				for i := 0; i < m; i++ {
					if !in[i] {
						keep = append(keep, i)
					}
				}
				xt := kernel.Rows(x, keep)
				ktt, err := kern.Block(xt, xt)
				if err != nil {
					b.Fatal(err)
				}
				for i := range keep {
					ktt.Set(i, i, ktt.At(i, i)+1) // λ = 1
				}
				a, err := linalg.SolveSPD(ktt, kernel.Rows(y, keep).(*mat.Dense))
				if err != nil {
					b.Fatal(err)
				}
				ksh, err := kern.Block(kernel.Rows(x, s), xt)
				if err != nil {
					b.Fatal(err)
				}
				var pred mat.Dense
				pred.Mul(ksh, a)
			}
		}
	})
}

// BenchmarkPredictInterval: intervals at coverage 0.9 for 1000 test
// points — CV+ (K = 10) after a gaussian fit at m = 2000, d = 10, and the
// jackknife+ (2000 leave-one-out models) of the linear form at m = 2000;
// beside each, the plain predictions of the same points.
func BenchmarkPredictInterval(b *testing.B) {
	const m, mt, d = 2000, 1000, 10
	for _, c := range []struct {
		name   string
		method string
		form   learn.Form
		kern   kernel.Kernel
	}{
		{"cv+/gaussian", model.CVPlus, learn.Dual, kernel.Gaussian{Gamma: 0.1}},
		{"jackknife+/linear", model.JackknifePlus, learn.Linear, kernel.Linear{Bias: 1}},
	} {
		b.Run(fmt.Sprintf("%s/m=%d/points=%d", c.name, m, mt), func(b *testing.B) {
			_, y, xt, sol, folds := benchProblem(b, m, mt, d, 10, c.form, c.kern)
			if c.method == model.JackknifePlus {
				folds = nil
			}
			p := sol.Predictor()
			iv, err := interval.New(p, sol, y, c.method, folds)
			if err != nil {
				b.Fatal(err)
			}
			p.Interval = iv
			b.Run("interval", func(b *testing.B) {
				for b.Loop() {
					if _, _, _, err := p.PredictInterval(xt, 0.9); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("prediction-only", func(b *testing.B) {
				for b.Loop() {
					if _, err := p.Predict(xt); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
