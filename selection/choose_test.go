package selection

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

// spreadOracle retrains rls without each fold of every repetition of the
// scheme at λ (internal/oracle.Ridge) — for leave-one-out without each row
// — and returns the per-fold values of the loss written here (mse or mae
// over the fold's rows and outputs; for leave-one-out each row's loss) and,
// per value, the bound on its error from predictions within the relative
// tolerance τ of rls's oracle tests: a residual r moved by δ, |δ| ≤ τ‖P‖,
// moves r² by at most 2|r|·τ‖P‖ + (τ‖P‖)² and |r| by τ‖P‖.
func spreadOracle(x, y *mat.Dense, k oracle.Kernel, sc Scheme, lambda float64, loss string) (values, bounds []float64) {
	m, nt := y.Dims()
	reps := sc.Repetitions()
	if sc.Kind == LOO {
		one := make([][]int, m)
		for i := range one {
			one[i] = []int{i}
		}
		reps = [][][]int{one}
	}
	tau := foldsTolerance(learn.Dual, k, x, lambda)
	for _, folds := range reps {
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
			pf := oracle.Ridge(oracle.Problem{X: x, Y: y, K: k}, train, f, lambda)
			for a, i := range f {
				p.SetRow(i, pf.RawRowView(a))
			}
		}
		delta := tau * mat.Norm(p, 2)
		for _, f := range folds {
			v, b := 0.0, 0.0
			for _, i := range f {
				for c := 0; c < nt; c++ {
					r := math.Abs(y.At(i, c) - p.At(i, c))
					if loss == "mse" {
						v, b = v+r*r, b+2*r*delta+delta*delta
					} else {
						v, b = v+r, b+delta
					}
				}
			}
			n := float64(len(f) * nt)
			values, bounds = append(values, v/n), append(bounds, b/n)
		}
	}
	return values, bounds
}

// Every point of the CV curve carries the standard error of its per-fold
// values, and it equals the spread of the values of models retrained
// without each fold (internal/oracle): k-fold, repeated k-fold (all R·K
// folds), group k-fold, and leave-one-out's per-row losses for mse and
// mae, on Select's one-pass path and per λ. The tolerance is derived: SE =
// sd/√K is Lipschitz in the vector v of fold values, |ΔSE| ≤
// ‖Δv‖₂/√(K(K−1)), and |ΔFoldMean| ≤ mean|Δv_f|, with |Δv_f| bounded by
// spreadOracle from rls's prediction tolerance; plus 100·ε of the value
// for rounding in the sums. FoldMean is the fold mean (for loo and mse or
// mae, the value itself).
func TestCurveSEEqualsRetraining(t *testing.T) {
	const m, d = 30, 4
	fd := newFoldData(5, m, d)
	ok := oracle.Kernel{Name: "gaussian", Gamma: 0.5 / d}
	l, err := rls.Fit(fd.x, fd.onevsa, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.5 / d}})
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1e-3, 0.1, 1, 10}
	worst := 0.0
	for _, c := range []struct{ spec, measure string }{
		{"kfold:5", "mse"}, {"kfold:4", "mae"}, {"repeated-kfold:3x2", "mse"}, {"group-kfold:4", "mse"}, {"loo", "mse"}, {"loo", "mae"},
	} {
		sc, err := NewScheme(c.spec, SchemeOptions{Rows: m, Seed: 3, Groups: fd.groups})
		if err != nil {
			t.Fatal(err)
		}
		meas := mustMeasure(t, c.measure)
		for _, route := range []struct {
			name string
			l    learn.Learner
		}{{"path", l}, {"per λ", perLambda{l}}} {
			t.Run(fmt.Sprintf("%s/%s/%s", c.spec, c.measure, route.name), func(t *testing.T) {
				res, err := Select(route.l, grid, sc, meas, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for n, pt := range res.Curve {
					v, b := spreadOracle(fd.x, fd.onevsa, ok, sc, grid[n], c.measure)
					k := float64(len(v))
					mean, ss, bm, b2 := 0.0, 0.0, 0.0, 0.0
					for f := range v {
						mean, bm, b2 = mean+v[f], bm+b[f], b2+b[f]*b[f]
					}
					mean, bm = mean/k, bm/k
					for _, x := range v {
						ss += (x - mean) * (x - mean)
					}
					se := math.Sqrt(ss / (k - 1) / k)
					seBound := math.Sqrt(b2/(k*(k-1))) + 100*0x1p-52*se
					meanBound := bm + 100*0x1p-52*mean
					if pt.NFolds != len(v) {
						t.Fatalf("λ=%g: %d per-fold values, retraining has %d", grid[n], pt.NFolds, len(v))
					}
					if d := math.Abs(pt.SE - se); !(d <= seBound) {
						t.Errorf("λ=%g: SE %.15g, retraining %.15g: difference %.2e > %.2e", grid[n], pt.SE, se, d, seBound)
					} else {
						worst = math.Max(worst, d/seBound)
					}
					if d := math.Abs(pt.FoldMean - mean); !(d <= meanBound) {
						t.Errorf("λ=%g: fold mean %.15g, retraining %.15g: difference %.2e > %.2e", grid[n], pt.FoldMean, mean, d, meanBound)
					}
					if !(seBound < 1e-3*se) {
						t.Errorf("λ=%g: the SE bound %.2e is no test of SE %.2e", grid[n], seBound, se)
					}
				}
			})
		}
	}
	t.Logf("largest SE error / bound %.2g", worst)
}

// A fold on which the measure is undefined (AUC on a fold of one class) is
// left out of the standard error, as out of --fold-score mean; the pooled
// value is unchanged, and with the mean over folds the fold mean is the
// value.
func TestCurveSEUndefinedFold(t *testing.T) {
	const m = 12
	x := mat.NewDense(m, 2, nil)
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		x.Set(i, 0, float64(i%5)-2)
		x.Set(i, 1, float64((i*7)%11)/3)
		y.Set(i, 0, -1)
	}
	for _, i := range []int{0, 3, 4, 7, 8, 11} {
		y.Set(i, 0, 1)
	}
	folds := [][]int{{0, 1, 2}, {3, 4, 5, 6}, {7, 8}, {9, 10, 11}} // {7, 8}: both +1, AUC undefined
	l, err := rls.Fit(x, y, learn.Options{Kernel: kernel.Linear{Bias: 1}})
	if err != nil {
		t.Fatal(err)
	}
	auc := mustMeasure(t, "auc")
	for _, mean := range []bool{false, true} {
		sc := Scheme{Kind: Folds, Name: "folds", Folds: folds, FoldMean: mean}
		res, err := Select(l, []float64{0.1, 1}, sc, auc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range res.Curve {
			if pt.NFolds != 3 {
				t.Errorf("mean=%v λ=%g: %d per-fold values (SE %g), want the 3 folds with both classes", mean, pt.Lambda, pt.NFolds, pt.SE)
			}
			if mean && pt.FoldMean != pt.Value {
				t.Errorf("λ=%g: fold mean %v, --fold-score mean value %v", pt.Lambda, pt.FoldMean, pt.Value)
			}
		}
	}
}

// OneSE takes the largest λ whose fold mean is within one standard error of
// the best fold mean, on curves written by hand: lower is better (mse) and,
// mirrored, higher is better (auc); the best's own SE sets the threshold;
// ties of the best go to the larger λ; a point without SE is an error.
func TestOneSE(t *testing.T) {
	mse, auc := mustMeasure(t, "mse"), mustMeasure(t, "auc")
	pts := func(fm, se []float64) []Point {
		out := make([]Point, len(fm))
		for i := range out {
			out[i] = Point{Lambda: math.Pow(10, float64(i-2)), Value: fm[i], FoldMean: fm[i], SE: se[i], NFolds: 5}
		}
		return out
	}
	cases := []struct {
		name   string
		curve  []Point
		higher bool
		want   int
	}{
		// best at 1 (0.50 ± 0.10): threshold 0.60; 0.59 at index 3 within, 0.61 at 4 not
		{"mse", pts([]float64{0.8, 0.5, 0.55, 0.59, 0.61}, []float64{0.01, 0.1, 0.2, 0.3, 0.3}), false, 3},
		// exactly at the threshold is within
		{"mse edge", pts([]float64{0.8, 0.5, 0.6, 0.7}, []float64{0.01, 0.1, 0.01, 0.01}), false, 2},
		// a within point beyond a worse one still counts (the largest λ)
		{"mse beyond", pts([]float64{0.5, 0.7, 0.55}, []float64{0.1, 0.01, 0.01}), false, 2},
		// the SE of the best sets the threshold, not the candidate's
		{"mse own se", pts([]float64{0.5, 0.61}, []float64{0.1, 5}), false, 0},
		// mirrored: best 0.90 ± 0.05, threshold 0.85
		{"auc", pts([]float64{0.7, 0.9, 0.86, 0.84}, []float64{0.01, 0.05, 0.01, 0.01}), true, 2},
		// ties of the best: the larger λ is the reference, and chosen when nothing further is within
		{"mse tie", pts([]float64{0.5, 0.5, 0.9}, []float64{0, 0, 0}), false, 1},
	}
	for _, c := range cases {
		meas := mse
		if c.higher {
			meas = auc
		}
		got, err := OneSE(c.curve, meas)
		if err != nil || got != c.want {
			t.Errorf("%s: OneSE = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	bad := pts([]float64{0.5, 0.6}, []float64{0.1, 0.1})
	bad[1].NFolds = 1
	if _, err := OneSE(bad, mse); !errors.Is(err, ErrNoSE) {
		t.Errorf("a point without SE: %v, want ErrNoSE", err)
	}
}

// Search with Choose 1se trains the model at the λ OneSE picks on the best
// kernel setting's curve (its predictor equals the learner solved there),
// reports the rule, and keeps the best point in the curve; schemes without
// standard errors are refused before any training.
func TestSearchChoose1SE(t *testing.T) {
	const m, d = 40, 3
	fd := newFoldData(8, m, d)
	desc, err := learn.Lookup("rls")
	if err != nil {
		t.Skip("rls not registered in this test binary:", err)
	}
	mse := mustMeasure(t, "mse")
	grid, _ := ParseGrid("10^-4..10^3", true)
	sc, err := NewScheme("kfold:5", SchemeOptions{Rows: m, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.05}, {Name: "gaussian", Gamma: 0.5}}
	prob := func() Problem { return Problem{Learner: desc, Input: &learn.Input{X: fd.x, Y: fd.label}} }
	best, err := Search(prob(), Settings{Kernels: specs, Lambdas: grid, Scheme: sc, Measure: mse})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Search(prob(), Settings{Kernels: specs, Lambdas: grid, Scheme: sc, Measure: mse, Choose: Choose1SE})
	if err != nil {
		t.Fatal(err)
	}
	if best.Choose != ChooseBest || one.Choose != Choose1SE || one.Best != best.Best {
		t.Fatalf("rules %q %q, settings %d %d", best.Choose, one.Choose, best.Best, one.Best)
	}
	c := one.Curves[one.Best]
	want, err := OneSE(c.Curve, mse)
	if err != nil {
		t.Fatal(err)
	}
	if one.Chosen != want || one.Lambda != c.Curve[want].Lambda || one.Value != c.Curve[want].Value {
		t.Errorf("chosen %d (λ %g), OneSE %d (λ %g)", one.Chosen, one.Lambda, want, c.Curve[want].Lambda)
	}
	if !(one.Lambda > best.Lambda) {
		t.Errorf("the 1se λ %g is not larger than the best λ %g: the test data do not exercise the rule", one.Lambda, best.Lambda)
	}
	s, err := one.Learner.At(one.Lambda)
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := one.Predictor.Predict(fd.x)
	p2, _ := s.Predictor().Predict(fd.x)
	if !mat.Equal(p1, p2) {
		t.Error("the predictor is not the model at the chosen λ")
	}
	at, err := Select(one.Learner, []float64{one.Lambda}, sc, mse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if one.ChosenPredictions == nil || !mat.Equal(one.ChosenPredictions, at.Predictions) || best.ChosenPredictions != nil {
		t.Error("the chosen model's CV predictions are not those at the chosen λ")
	}
	for _, spec := range []string{"lpo", "none"} {
		sc, err := NewScheme(spec, SchemeOptions{Rows: m})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Search(prob(), Settings{Kernels: specs[:1], Lambdas: grid[:1], Scheme: sc, Measure: mustMeasure(t, "cindex"), Choose: Choose1SE}); !errors.Is(err, ErrNoSE) {
			t.Errorf("%s: %v, want ErrNoSE", spec, err)
		}
	}
	loo, _ := NewScheme("loo", SchemeOptions{Rows: m})
	if err := CheckChoose(Choose1SE, loo, mustMeasure(t, "r2")); !errors.Is(err, ErrNoSE) {
		t.Errorf("loo r2: %v, want ErrNoSE", err)
	}
	if err := CheckChoose(Choose1SE, loo, mse); err != nil {
		t.Errorf("loo mse: %v", err)
	}
}
