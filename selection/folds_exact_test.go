package selection

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

// foldsTolerance is the relative tolerance of rls's oracle tests
// (rls/oracle_test.go, tolerance) for predictions of the form at λ:
// max(1e-8, 100·ε·trace(K)/λ) for the dual form — the kernel's rounding
// ε·|K| amplified by ‖(K + λI)⁻¹‖·‖K‖ ≤ trace(K)/λ, 100 for the constants —
// and 1e-8 for the linear and sparse forms (two least-squares solutions of
// well-conditioned problems: a cap, the errors measured there are ~1e-10).
func foldsTolerance(form learn.Form, k oracle.Kernel, x *mat.Dense, lambda float64) float64 {
	if form != learn.Dual {
		return 1e-8
	}
	return math.Max(1e-8, 100*0x1p-52*oracle.Trace(k, x)/lambda)
}

// The CV curve of every new fold kind — stratified k-fold (one class
// column and one-vs-all ±1 columns), group k-fold, repeated k-fold — equals
// naive retraining for rls in its dual, linear and sparse forms (the basis
// kept, and removed from the model of a fold that holds basis rows), on
// Select's one-pass path and per λ: internal/oracle refits each fold's
// training rows from scratch (LU on K_TT + λI, QR of the augmented primal
// and sparse least-squares problems) and predicts its held-out rows; each
// repetition's pooled predictions are scored by the mean squared error
// written here, and a repeated scheme's value is the mean over its
// repetitions. Predictions within the relative tolerance τ of rls's oracle
// tests (foldsTolerance) move an MSE over n values with residuals r by at
// most (2‖r‖·τ‖P‖ + (τ‖P‖)²)/n: the curve is held to that, plus 100·ε of
// the value for the two MSE sums' rounding; the predictions at the best λ
// (the first repetition's) to τ; the best λ to a value within the two
// points' bounds of the oracle's best. Every τ is below 1e-2 (a check that
// can fail) and, from λ = 1e-3 on, at most 1e-6.
func TestFoldKindsEqualRetraining(t *testing.T) {
	const m, d = 36, 4
	fd := newFoldData(9, m, d)
	ok := oracle.Kernel{Name: "gaussian", Gamma: 0.5 / d}
	gauss := kernel.Gaussian{Gamma: 0.5 / d}
	basis := []int{1, 4, 8, 13, 17, 22, 26, 30, 33}
	forms := []struct {
		name   string
		opt    learn.Options
		ok     oracle.Kernel
		policy learn.Policy
	}{
		{"dual", learn.Options{Kernel: gauss}, ok, ""},
		{"linear", learn.Options{Kernel: kernel.Linear{Bias: 1}, Form: learn.Linear}, oracle.Kernel{Name: "linear", Bias: 1}, ""},
		{"sparse kept", learn.Options{Kernel: gauss, Form: learn.Sparse, Basis: basis}, ok, learn.Keep},
		{"sparse removed", learn.Options{Kernel: gauss, Form: learn.Sparse, Basis: basis}, ok, learn.Remove},
	}
	grid := oracle.Lambdas
	mse := mustMeasure(t, "mse")
	worstValue, worstPred := 0.0, 0.0 // largest error over its bound
	for _, labels := range []struct {
		name string
		y    *mat.Dense
	}{{"class column", fd.label}, {"one-vs-all", fd.onevsa}} {
		for _, spec := range []string{"stratified-kfold:4", "group-kfold:5", "repeated-kfold:3x4"} {
			sc, err := NewScheme(spec, SchemeOptions{Rows: m, Seed: 11, Labels: labels.y, Groups: fd.groups})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range forms {
				l, err := rls.Fit(fd.x, labels.y, f.opt)
				if err != nil {
					t.Fatal(err)
				}
				sc := sc
				sc.Basis = f.policy
				want, bound, pred := foldsOracle(t, fd.x, labels.y, f.ok, f.opt, f.policy, sc, grid)
				for _, route := range []struct {
					name string
					l    learn.Learner
				}{{"path", l}, {"per λ", perLambda{l}}} {
					t.Run(fmt.Sprintf("%s/%s/%s/%s", labels.name, spec, f.name, route.name), func(t *testing.T) {
						res, err := Select(route.l, grid, sc, mse, Options{})
						if err != nil {
							t.Fatal(err)
						}
						best := 0
						for n, p := range res.Curve {
							d := math.Abs(p.Value - want[n])
							worstValue = math.Max(worstValue, d/bound[n])
							if !(d <= bound[n]+100*0x1p-52*want[n]) {
								t.Errorf("λ=%g: CV value %.15g, retraining %.15g: difference %.2e > bound %.2e", grid[n], p.Value, want[n], d, bound[n])
							}
							if want[n] < want[best] {
								best = n
							}
						}
						b := res.BestIndex
						if !(want[b] <= want[best]+bound[b]+bound[best]) {
							t.Errorf("best λ %g (retraining's value %g), retraining's best λ %g (%g)", grid[b], want[b], grid[best], want[best])
						}
						tau := foldsTolerance(f.opt.Form, f.ok, fd.x, grid[b])
						e := oracle.RelErr(res.Predictions, pred[b])
						worstPred = math.Max(worstPred, e/tau)
						if !(e <= tau) {
							t.Errorf("predictions at λ=%g: relative error %.2e > %.2e", grid[b], e, tau)
						}
					})
				}
			}
		}
	}
	t.Logf("largest error / bound: CV values %.2g, predictions %.2g", worstValue, worstPred)
	for _, lambda := range grid {
		for _, f := range forms {
			switch tau := foldsTolerance(f.opt.Form, f.ok, fd.x, lambda); {
			case tau >= 1e-2:
				t.Errorf("%s λ=%g: tolerance %.1e cannot fail", f.name, lambda, tau)
			case lambda >= 1e-3 && tau > 1e-6:
				t.Errorf("%s λ=%g: tolerance %.1e above 1e-6", f.name, lambda, tau)
			}
		}
	}
}

// foldsOracle retrains rls without each fold of every repetition of the
// scheme, at every λ of the grid, by internal/oracle: the value (mean over
// the repetitions of each repetition's MSE), the bound on a value from
// predictions within foldsTolerance, and the first repetition's
// predictions, per λ.
func foldsOracle(t *testing.T, x, y *mat.Dense, k oracle.Kernel, opt learn.Options, policy learn.Policy, sc Scheme, grid []float64) (value, bound []float64, first []*mat.Dense) {
	t.Helper()
	m, nt := y.Dims()
	_, d := x.Dims()
	reps := sc.Repetitions()
	value, bound = make([]float64, len(grid)), make([]float64, len(grid))
	for n, lambda := range grid {
		tau := foldsTolerance(opt.Form, k, x, lambda)
		for r, folds := range reps {
			p := mat.NewDense(m, nt, nil)
			for _, f := range folds {
				out := map[int]bool{}
				for _, i := range f {
					out[i] = true
				}
				var train []int
				for i := 0; i < m; i++ {
					if !out[i] {
						train = append(train, i)
					}
				}
				prob := oracle.Problem{X: x, Y: y, K: k, Primal: opt.Form == learn.Linear && d+1 < len(train)}
				for _, b := range opt.Basis {
					if policy != learn.Remove || !out[b] {
						prob.Basis = append(prob.Basis, b)
					}
				}
				pf := oracle.Ridge(prob, train, f, lambda)
				for a, i := range f {
					p.SetRow(i, pf.RawRowView(a))
				}
			}
			var res mat.Dense
			res.Sub(y, p)
			rn, pn := mat.Norm(&res, 2), tau*mat.Norm(p, 2)
			value[n] += rn * rn / float64(m*nt)
			bound[n] += (2*rn*pn + pn*pn) / float64(m*nt)
			if r == 0 {
				first = append(first, p)
			}
		}
		value[n] /= float64(len(reps))
		bound[n] /= float64(len(reps))
	}
	return value, bound, first
}
