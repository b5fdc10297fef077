package selection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

// perOutputData are m rows of d features and three outputs that want
// different λ: a smooth function with little noise (small λ), the same
// with much noise (larger λ), and noise alone (the largest).
func perOutputData(m, d int) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, y := mat.NewDense(m, d, nil), mat.NewDense(m, 3, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		f := math.Sin(x.At(i, 0)) + 0.5*x.At(i, 1)
		y.Set(i, 0, f+0.05*rng.NormFloat64())
		y.Set(i, 1, f+1.5*rng.NormFloat64())
		y.Set(i, 2, rng.NormFloat64())
	}
	return x, y
}

// A λ per output (Settings.LambdaPerOutput) is each output's own choice:
// the per-output curve of the multi-output search equals the curve of a
// search on that label column alone at every λ, each output's λ is the
// best of its own curve (picked here by hand: the smallest mse, ties to
// the larger λ), the predictor's output c is the single-output model at
// λ_c, and the CV predictions of output c are those at λ_c — for rls in
// its dual (gaussian) and linear forms, by leave-one-out, k-fold (pooled
// and, with folds of unequal size, the mean over folds) and repeated
// k-fold. The outputs want different λ (checked: a test that can
// fail), and the value of all outputs together (the shared λ's) is the
// mean of the per-output values. Both searches run the same factorization
// and the same operations column by column; they differ by BLAS blocking
// over 1 or 3 columns only, so the values are held to 1e-9 relative.
func TestLambdaPerOutputEqualsOwnCurves(t *testing.T) {
	const m, d = 40, 3
	x, y := perOutputData(m, d)
	desc, err := learn.Lookup("rls")
	if err != nil {
		t.Fatal(err)
	}
	grid, _ := ParseGrid("10^-4..10^3:15", true)
	mse := mustMeasure(t, "mse")
	const tol = 1e-9
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) }
	for _, k := range []kernel.Spec{{Name: "gaussian", Gamma: 0.3}, {Name: "linear", Bias: 1}} {
		for _, spec := range []string{"loo", "kfold:5", "kfold:7/mean", "repeated-kfold:4x2"} {
			t.Run(fmt.Sprintf("%s/%s", k.Name, spec), func(t *testing.T) {
				name, mean := strings.CutSuffix(spec, "/mean")
				sc, err := NewScheme(name, SchemeOptions{Rows: m, Seed: 4, FoldMean: mean})
				if err != nil {
					t.Fatal(err)
				}
				set := Settings{Kernels: []kernel.Spec{k}, Lambdas: grid, Scheme: sc, Measure: mse, LambdaPerOutput: true}
				res, err := Search(Problem{Learner: desc, Input: &learn.Input{X: x, Y: y}}, set)
				if err != nil {
					t.Fatal(err)
				}
				c := res.Curves[res.Best]
				distinct := map[float64]bool{}
				for out := 0; out < 3; out++ {
					yc := mat.NewDense(m, 1, mat.Col(nil, out, y))
					one := set
					one.LambdaPerOutput = false
					single, err := Search(Problem{Learner: desc, Input: &learn.Input{X: x, Y: yc}}, one)
					if err != nil {
						t.Fatal(err)
					}
					best := 0
					for n, pt := range single.Curves[0].Curve {
						if got := c.PerOutput[n][out]; !near(got, pt.Value) {
							t.Errorf("output %d, λ=%g: per-output value %.15g, alone %.15g", out, pt.Lambda, got, pt.Value)
						}
						if v, b := c.PerOutput[n][out], c.PerOutput[best][out]; v < b || v == b && grid[n] > grid[best] {
							best = n
						}
					}
					ch := res.PerOutput[out]
					if ch.Output != out || ch.Index != best || ch.Lambda != grid[best] || ch.Value != c.PerOutput[best][out] {
						t.Errorf("output %d: chosen %+v, its own curve's best is λ=%g (%g)", out, ch, grid[best], c.PerOutput[best][out])
					}
					if single.Lambda != ch.Lambda {
						t.Errorf("output %d: λ %g, alone %g", out, ch.Lambda, single.Lambda)
					}
					distinct[ch.Lambda] = true
					got, _ := res.Predictor.Predict(x)
					want, _ := single.Predictor.Predict(x)
					gc, wc := mat.NewDense(m, 1, mat.Col(nil, out, got)), want
					if e := oracle.RelErr(gc, wc); !(e <= tol) {
						t.Errorf("output %d: model at its λ differs from the single-output model by %.2e", out, e)
					}
					pc := mat.NewDense(m, 1, mat.Col(nil, out, res.ChosenPredictions))
					if e := oracle.RelErr(pc, single.Curves[0].Predictions); !(e <= tol) {
						t.Errorf("output %d: CV predictions at its λ differ from alone by %.2e", out, e)
					}
				}
				if len(distinct) < 2 {
					t.Errorf("the outputs chose the same λ %v: the test does not exercise a λ per output", distinct)
				}
				for n, pt := range c.Curve {
					mean := (c.PerOutput[n][0] + c.PerOutput[n][1] + c.PerOutput[n][2]) / 3
					if !near(mean, pt.Value) {
						t.Errorf("λ=%g: value %.15g, mean of the outputs %.15g", pt.Lambda, pt.Value, mean)
					}
				}
			})
		}
	}
}

// A λ per output is refused where it has no meaning: leave-pair-out, a
// measure that scores the outputs together, the one-standard-error rule.
func TestLambdaPerOutputRefused(t *testing.T) {
	x, y := perOutputData(20, 2)
	desc, _ := learn.Lookup("rls")
	lpo, _ := NewScheme("lpo", SchemeOptions{Rows: 20})
	loo, _ := NewScheme("loo", SchemeOptions{Rows: 20})
	for name, set := range map[string]Settings{
		"lpo": {Scheme: lpo, Measure: mustMeasure(t, "cindex")},
		"1se": {Scheme: loo, Measure: mustMeasure(t, "mse"), Choose: Choose1SE},
	} {
		set.Kernels, set.Lambdas, set.LambdaPerOutput = []kernel.Spec{{Name: "linear"}}, []float64{1, 2}, true
		if _, err := Search(Problem{Learner: desc, Input: &learn.Input{X: x, Y: y}}, set); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BestPerOutput on values written by hand: each output's best (lower is
// better for mse, higher for auc), ties to the larger λ; a curve and
// values of different lengths are an error.
func TestBestPerOutput(t *testing.T) {
	curve := []Point{{Lambda: 0.1}, {Lambda: 1}, {Lambda: 10}}
	values := [][]float64{{0.3, 0.9, 0.5}, {0.2, 0.8, 0.5}, {0.4, 0.7, 0.6}}
	for _, c := range []struct {
		meas string
		want []float64
	}{{"mse", []float64{1, 10, 1}}, {"auc", []float64{10, 0.1, 10}}} {
		got, err := BestPerOutput(curve, values, mustMeasure(t, c.meas))
		if err != nil {
			t.Fatal(err)
		}
		for k, o := range got {
			if o.Output != k || o.Lambda != c.want[k] || o.Value != values[o.Index][k] || curve[o.Index].Lambda != o.Lambda {
				t.Errorf("%s output %d: %+v, want λ=%g", c.meas, k, o, c.want[k])
			}
		}
	}
	if _, err := BestPerOutput(curve, values[:2], mustMeasure(t, "mse")); err == nil {
		t.Error("3 points, 2 rows of values: no error")
	}
}

// BenchmarkPerOutput is Select's cross-validation of rls (gaussian kernel,
// m = 1000, t = 8 outputs, 31 λ, 5-fold and leave-one-out, mse) with and
// without each output's value at every λ (Options.PerOutput), after
// training (not timed): the price of the per-output curves of a λ per
// output — the measure once more per output and λ and an m-row copy of
// each output's column.
func BenchmarkPerOutput(b *testing.B) {
	const m, t = 1000, 8
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := mat.NewDense(m, 5, nil), mat.NewDense(m, t, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < 5; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		for c := 0; c < t; c++ {
			y.Set(i, c, math.Sin(x.At(i, c%5))+float64(c)*0.2*rng.NormFloat64())
		}
	}
	l, err := rls.Fit(x, y, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.1}})
	if err != nil {
		b.Fatal(err)
	}
	mse := mustMeasureBench(b, "mse")
	for _, spec := range []string{"kfold:5", "loo"} {
		sc, err := NewScheme(spec, SchemeOptions{Rows: m, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, per := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/perOutput=%v", spec, per), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Select(l, DefaultGrid(), sc, mse, Options{PerOutput: per}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
