package interval_test

import (
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

// TestIntervalsWeighted: with sample weights (rls.Options.Weights, the loss
// Σ w_i (y_i − f(x_i))² + λ‖f‖²) the hold-out models are the weighted
// learner's refit on the kept rows with their weights — checked here
// against a direct weighted solve per fold: the linear form's ridge on
// √w·[x, 1] (jackknife+) and the dual gaussian's (K_TT + λW_T⁻¹)a = y_T
// (CV+, 4 folds) — and the intervals, from New and from NewFromCV, equal
// those of the refit models to 1e-8 of max|y|.
func TestIntervalsWeighted(t *testing.T) {
	const m, mt, d = 24, 5, 2
	rng := rand.New(rand.NewPCG(8, 8))
	xAll, yAll := oracle.Data(rng, m+mt, d, 1, false, 0, oracle.Smooth)
	x, y := mat.DenseCopyOf(xAll.Slice(0, m, 0, d)), mat.DenseCopyOf(yAll.Slice(0, m, 0, 1))
	xt := mat.DenseCopyOf(xAll.Slice(m, m+mt, 0, d))
	w := make([]float64, m)
	for i := range w {
		w[i] = math.Exp(2*rng.Float64() - 1)
	}
	perm := rng.Perm(m)
	folds := [][]int{perm[:5], perm[5:11], perm[11:18], perm[18:]}
	scale := mat.Norm(y, math.Inf(1))
	for _, c := range []struct {
		name   string
		form   learn.Form
		kern   kernel.Kernel
		method string
	}{
		{"linear jackknife+", learn.Linear, kernel.Linear{Bias: 1}, model.JackknifePlus},
		{"dual gaussian cv+", learn.Dual, kernel.Gaussian{Gamma: 0.5}, model.CVPlus},
	} {
		const lambda = 0.3
		r, err := rls.Fit(x, y, rls.Options{Kernel: c.kern, Form: c.form, Weights: w})
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
		// the weighted refit of every fold: predictions of its rows and the test rows
		fold := make([]int, m)
		res := make([]float64, m)
		mu := make([][]float64, len(bf))
		cv := mat.NewDense(m, 1, nil)
		for k, s := range bf {
			var keep []int
			for i := 0; i < m; i++ {
				if !slices.Contains(s, i) {
					keep = append(keep, i)
				}
			}
			pred := weightedRefit(c.kern, xAll, y, w, keep, append(slices.Clone(s), testIdx(m, mt)...), lambda)
			for a, i := range s {
				fold[i] = k
				res[i] = math.Abs(y.At(i, 0) - pred[a])
				cv.Set(i, 0, pred[a])
			}
			mu[k] = pred[len(s):]
		}
		for _, variant := range []string{"New", "NewFromCV"} {
			p := sol.Predictor()
			var iv *model.Interval
			if variant == "New" {
				iv, err = interval.New(p, sol, y, c.method, fs)
			} else {
				var all [][]int = bf
				if _, gerr := sol.HoldOutModelsGiven(all, cv); gerr != nil {
					t.Errorf("%s: the refit's own predictions are refused: %v", c.name, gerr)
				}
				iv, err = interval.NewFromCV(p, sol, y, c.method, fs, cv)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, variant, err)
			}
			p.Interval = iv
			_, lo, hi, err := p.PredictInterval(xt, 0.75)
			if err != nil {
				t.Fatal(err)
			}
			for j := 0; j < mt; j++ {
				muj := make([]float64, len(bf))
				for k := range bf {
					muj[k] = mu[k][j]
				}
				wl, wh := bruteInterval(muj, fold, res, level{3, 4})
				if e := math.Max(math.Abs(lo.At(j, 0)-wl), math.Abs(hi.At(j, 0)-wh)) / scale; !(e <= 1e-8) {
					t.Errorf("%s %s row %d: [%v, %v], want [%v, %v]", c.name, variant, j, lo.At(j, 0), hi.At(j, 0), wl, wh)
				}
			}
		}
	}
}

// testIdx is m..m+mt−1.
func testIdx(m, mt int) []int {
	out := make([]int, mt)
	for i := range out {
		out[i] = m + i
	}
	return out
}

// weightedRefit trains the weighted learner on the rows keep and predicts
// the rows pred of xAll: the linear kernel by ridge on √w_i·[x_i, √bias]
// (internal/oracle's least squares), any other by (K_TT + λW_T⁻¹)a = y_T
// with the kernel evaluated entry by entry.
func weightedRefit(k kernel.Kernel, xAll, y *mat.Dense, w []float64, keep, pred []int, lambda float64) []float64 {
	s := k.Spec()
	ok := oracle.Kernel{Name: s.Name, Gamma: s.Gamma, Bias: s.Bias}
	out := make([]float64, len(pred))
	if s.Name == "linear" {
		f := oracle.WithBias(oracle.Rows(xAll, keep), s.Bias)
		yt := oracle.Rows(y, keep)
		r, c := f.Dims()
		for i := 0; i < r; i++ {
			sw := math.Sqrt(w[keep[i]])
			for j := 0; j < c; j++ {
				f.Set(i, j, sw*f.At(i, j))
			}
			yt.Set(i, 0, sw*yt.At(i, 0))
		}
		beta := oracle.RidgeLS(f, yt, lambda)
		var p mat.Dense
		p.Mul(oracle.WithBias(oracle.Rows(xAll, pred), s.Bias), beta)
		for i := range out {
			out[i] = p.At(i, 0)
		}
		return out
	}
	ktt := ok.Gram(xAll, keep, keep)
	for a, i := range keep {
		ktt.Set(a, a, ktt.At(a, a)+lambda/w[i])
	}
	var alpha mat.Dense
	if err := alpha.Solve(ktt, oracle.Rows(y, keep)); err != nil {
		panic(err)
	}
	var p mat.Dense
	p.Mul(ok.Gram(xAll, pred, keep), &alpha)
	for i := range out {
		out[i] = p.At(i, 0)
	}
	return out
}
