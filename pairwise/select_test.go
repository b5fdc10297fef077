package pairwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

var (
	_ learn.Learner       = (*KronRLS)(nil)
	_ learn.LeaveOneOuter = (*KronSolution)(nil)
	_ learn.HoldOuter     = (*KronSolution)(nil)
	_ learn.Learner       = (*TwoStepAt)(nil)
	_ learn.LeaveOneOuter = (*TwoStepSolution)(nil)
)

// Through the learner contract, selection.Select runs setting A (LOO) and
// k-fold over pairs (HoldOut) on Kronecker RLS, and setting A on two-step RLS.
func TestContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	rows, cols := randSides(t, rng, 5, 6, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mse, _ := measure.ByName("mse")
	res, err := selection.Select(k, lambdas, selection.Scheme{Kind: selection.LOO, Name: "loo"}, mse, selection.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pm, _ := MeasureByName("mse")
	own, err := SelectKron(k, Design{Setting: Pairs}, lambdas, pm)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lambdas {
		if math.Abs(res.Curve[i].Value-own.Curve[i].Value) > 1e-12*own.Curve[i].Value {
			t.Errorf("λ=%g: selection %v, pairwise %v", lambdas[i], res.Curve[i].Value, own.Curve[i].Value)
		}
	}
	// pair folds through HoldOut against retraining
	folds := randFolds(rng, len(pairs), 4)
	res, err = selection.Select(k, lambdas[1:2], selection.Scheme{Kind: selection.Folds, Name: "folds", Folds: folds}, mse, selection.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []float64
	for _, f := range folds {
		held := map[Pair]bool{}
		var test []Pair
		for _, i := range f {
			held[pairs[i]] = true
			test = append(test, pairs[i])
			got = append(got, res.Predictions.At(i, 0))
		}
		want = append(want, bruteKronGrid(rows, cols, k.Matrix(), func(i, j int) bool { return !held[Pair{i, j}] }, test, lambdas[1])...)
	}
	check(t, "pair folds via selection", got, want)

	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = selection.Select(ts.WithColLambda(0.5), lambdas, selection.Scheme{Kind: selection.LOO, Name: "loo"}, mse, selection.Options{})
	if err != nil {
		t.Fatal(err)
	}
	two, err := SelectTwoStep(ts, Design{Setting: Pairs}, lambdas, []float64{0.5}, pm)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lambdas {
		if math.Abs(res.Curve[i].Value-two.Curve[i].Value) > 1e-12*two.Curve[i].Value {
			t.Errorf("two-step λ=%g: selection %v, pairwise %v", lambdas[i], res.Curve[i].Value, two.Curve[i].Value)
		}
	}
	// the contract's predictor is the expansion over pairs: rows of 𝕂(x, p)
	sol, _ := k.Solve(1)
	kx := mat.NewDense(len(pairs), len(pairs), nil)
	for a, p := range pairs {
		for b, r := range pairs {
			kx.Set(a, b, rows.Matrix().At(p.Row, r.Row)*cols.Matrix().At(p.Col, r.Col))
		}
	}
	pred, err := sol.Predictor().Predict(kx)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "predictor over pairs", pred.RawMatrix().Data, k.lab.pick(sol.Fitted()))
}

func TestSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	rows, cols := randSides(t, rng, 6, 5, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range MeasureNames() {
		m, err := MeasureByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "auc" || name == "accuracy" {
			continue // labels are not binary here
		}
		res, err := SelectTwoStep(ts, Design{Setting: Both}, []float64{0.1, 10}, []float64{0.1, 1, 10}, m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Curve) != 6 || res.BestIndex < 0 || len(res.Predictions) != len(pairs) {
			t.Fatalf("%s: %+v", name, res)
		}
		for _, pt := range res.Curve {
			if m.Better(pt.Value, res.Best.Value) {
				t.Errorf("%s: %v beats the best %v", name, pt, res.Best)
			}
		}
	}
	if _, err := MeasureByName("multiclass-accuracy"); err == nil {
		t.Error("multiclass-accuracy accepted")
	}
	if _, err := MeasureByName("nope"); err == nil {
		t.Error("unknown measure accepted")
	}
}

// The deprecated wrappers the command line still calls: the measure wraps
// package measure's (the row objects as query ids), and the selections'
// best predictions are the CV predictions at the best point, not a buffer
// later points overwrote.
func TestDeprecatedWrappers(t *testing.T) {
	m, err := MeasureByName("cindex-row")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := measure.ByName("cindex-row")
	if m.Name != want.Name || m.HigherIsBetter != want.HigherIsBetter || !m.Ordinal || !m.NeedsQueries {
		t.Errorf("cindex-row: %+v", m)
	}
	y, p, rows := []float64{1, 2, 3, 1, 2}, []float64{0.3, 0.1, 0.2, 1, 2}, []int{0, 0, 0, 1, 1}
	got, err := m.Score(y, p, rows)
	if w, _ := measure.RowAveragedCIndex(y, p, rows); err != nil || got != w {
		t.Errorf("cindex-row score %v, %v; want %v", got, err, w)
	}
	rng := rand.New(rand.NewPCG(35, 36))
	rs, cs := randSides(t, rng, 5, 4, kernelCases[0].k)
	pairs, yy := gridLabels(rng, rs, cs)
	k, _ := FitKron(rs, cs, pairs, yy, Options{})
	ts, _ := FitTwoStep(rs, cs, pairs, yy, Options{})
	mse, _ := MeasureByName("mse")
	grid := []float64{1e-2, 1, 1e2}
	for _, d := range []Design{{Setting: Pairs}, {Setting: Rows, RowFolds: [][]int{{0, 1}, {3}}}, {Setting: Both}} {
		res, err := SelectKron(k, d, grid, mse)
		if err != nil {
			t.Fatal(err)
		}
		cvAt := designRuns(t, k, d.Learn(), []float64{res.Best.Lambda}, nil)[0][0]
		if !sameValues(res.Predictions, cvAt.RawMatrix().Data) || res.Best != res.Curve[res.BestIndex] {
			t.Errorf("kronrls %s: best predictions are not the CV predictions at λ = %g", d, res.Best.Lambda)
		}
		two, err := SelectTwoStep(ts, d, grid, grid[:2], mse)
		if err != nil {
			t.Fatal(err)
		}
		cvAt = designRuns(t, ts, d.Learn(), []float64{two.Best.Lambda}, []float64{two.Best.ColLambda})[0][0]
		if !sameValues(two.Predictions, cvAt.RawMatrix().Data) || two.Best != two.Curve[two.BestIndex] {
			t.Errorf("twostep %s: best predictions are not the CV predictions at (%g, %g)", d, two.Best.Lambda, two.Best.ColLambda)
		}
	}
}
