package pairwise

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
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
// k-fold over pairs (HoldOut) on Kronecker RLS, and setting A on two-step RLS:
// its LOO curve is the learner's setting A (CrossValidateDesign).
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
	own, err := designCurve(k, learn.Design{Setting: "pairs"}, lambdas, nil, mse)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lambdas {
		if own[i].Lambda != lambdas[i] || math.Abs(res.Curve[i].Value-own[i].Value) > 1e-12*own[i].Value {
			t.Errorf("λ=%g: LOO %v, setting A %+v", lambdas[i], res.Curve[i].Value, own[i])
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
		want = append(want, bruteKronGrid(rows, cols, labelGrid(5, 6, pairs, y, Heterogeneous), func(i, j int) bool { return !held[Pair{i, j}] }, test, lambdas[1])...)
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
	two, err := designCurve(ts, learn.Design{Setting: "pairs"}, lambdas, []float64{0.5}, mse)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lambdas {
		if two[i].Lambda != lambdas[i] || two[i].ColLambda != 0.5 || math.Abs(res.Curve[i].Value-two[i].Value) > 1e-12*two[i].Value {
			t.Errorf("two-step λ=%g: LOO %v, setting A %+v", lambdas[i], res.Curve[i].Value, two[i])
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

// designCurve cross-validates a learner of pairs by the design along the λ
// grid (and the column λ grid of two-step RLS) with its CrossValidateDesign
// and scores the CV predictions of the pairs with the measure, each pair's
// row object its query, comparing predictions exactly
// (selection.ScoreWithin without a tolerance): the curve in the order the
// learner visits the grid. For a measure without ties it is
// selection.Search's curve of the learner. Cost: CrossValidateDesign's plus
// the measure's per point.
func designCurve(l interface {
	learn.Learner
	learn.DesignValidator
	Pairs() []Pair
}, d learn.Design, grid, colGrid []float64, meas measure.Measure) ([]selection.Point, error) {
	pairs := l.Pairs()
	queries := make([]int, len(pairs))
	for n, p := range pairs {
		queries[n] = p.Row
	}
	y := l.Labels()
	var curve []selection.Point
	err := l.CrossValidateDesign(d, grid, colGrid, func(i, j int, p *mat.Dense) error {
		pt := selection.Point{Lambda: grid[i]}
		if colGrid != nil {
			pt.ColLambda = colGrid[j]
		}
		v, indistinct, err := selection.ScoreWithin(meas, y, p, queries, nil)
		if err != nil {
			return err
		}
		pt.Value, pt.Indistinguishable = v, indistinct
		curve = append(curve, pt)
		return nil
	})
	return curve, err
}

// sidesInput is the input of the registered learners of pairs on the
// objects of two sides (their kernels are the search's) with the pairs and
// labels.
func sidesInput(rows, cols *Side, pairs []Pair, y []float64) *learn.Input {
	in := &learn.Input{X: rows.x, Cols: cols.x, Y: mat.NewDense(len(y), 1, append([]float64(nil), y...))}
	for _, p := range pairs {
		in.Pairs = append(in.Pairs, learn.ObjectPair{Row: p.Row, Col: p.Col})
	}
	return in
}

// selection.Search runs two-step RLS through the registry with every
// measure that applies to pairs (setting D over the joint λ grid): a full
// curve, the CV predictions of every pair at the best point, and no point
// better than it; the multiclass measure is refused, pairs having one label.
func TestSearchMeasures(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	kern := kernelCases[0].k
	rows, cols := randSides(t, rng, 6, 5, kern)
	pairs, y := gridLabels(rng, rows, cols)
	d, _ := learn.Lookup("twostep")
	sc, err := selection.NewScheme("both", selection.SchemeOptions{RowObjects: 6, ColObjects: 5})
	if err != nil {
		t.Fatal(err)
	}
	st := selection.Settings{Kernels: []kernel.Spec{kern.Spec()}, ColKernels: []kernel.Spec{kern.Spec()},
		Lambdas: []float64{0.1, 10}, ColLambdas: []float64{0.1, 1, 10}, Scheme: sc}
	for _, name := range measure.Names() {
		m, err := measure.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		st.Measure = m
		res, err := selection.Search(selection.Problem{Learner: d, Input: sidesInput(rows, cols, pairs, y)}, st)
		if m.Multiclass {
			if !errors.Is(err, measure.ErrUnknown) {
				t.Errorf("%s: %v, want a refusal (ErrUnknown)", name, err)
			}
			continue
		}
		if name == "auc" || name == "accuracy" {
			continue // labels are not binary here
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := res.Curves[0]
		if len(res.Curves) != 1 || len(c.Curve) != 6 || c.BestIndex < 0 || c.Predictions == nil {
			t.Fatalf("%s: %+v", name, res)
		}
		if r, _ := c.Predictions.Dims(); r != len(pairs) {
			t.Fatalf("%s: %d CV predictions for %d pairs", name, r, len(pairs))
		}
		if c.Best != c.Curve[c.BestIndex] || res.Lambda != c.Best.Lambda || res.ColLambda != c.Best.ColLambda || res.Value != c.Best.Value {
			t.Errorf("%s: best %+v, curve's %+v, search's (%g, %g) %v", name, c.Best, c.Curve[c.BestIndex], res.Lambda, res.ColLambda, res.Value)
		}
		for _, pt := range c.Curve {
			if m.Better(pt.Value, c.Best.Value) {
				t.Errorf("%s: %v beats the best %v", name, pt, c.Best)
			}
		}
	}
}

// The per-row c-index (measure.ByName("cindex-row")) scores pairs with each
// pair's row object as its query id: measure.RowAveragedCIndex.
func TestRowCIndexMeasure(t *testing.T) {
	m, err := measure.ByName("cindex-row")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "cindex-row" || !m.HigherIsBetter || !m.Ordinal || !m.NeedsQueries {
		t.Errorf("cindex-row: %+v", m)
	}
	y, p, rows := []float64{1, 2, 3, 1, 2}, []float64{0.3, 0.1, 0.2, 1, 2}, []int{0, 0, 0, 1, 1}
	got, err := m.Score(mat.NewDense(5, 1, y), mat.NewDense(5, 1, p), rows)
	if w, _ := measure.RowAveragedCIndex(y, p, rows); err != nil || got != w {
		t.Errorf("cindex-row score %v, %v; want %v", got, err, w)
	}
}

// selection.Search's best predictions for a learner of pairs are the
// learner's CV predictions at the best point (CrossValidateDesign), not a
// buffer later points overwrote — for Kronecker and two-step RLS, in
// settings A, B with partial row folds (NaN for the pairs of rows in no
// fold) and D.
func TestSearchBestPredictions(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	kern := kernelCases[0].k
	rs, cs := randSides(t, rng, 5, 4, kern)
	pairs, yy := gridLabels(rng, rs, cs)
	mse, _ := measure.ByName("mse")
	grid := []float64{1e-2, 1, 1e2}
	for _, spec := range []struct {
		setting string
		folds   [][]int
	}{{"pairs", nil}, {"rows", [][]int{{0, 1}, {3}}}, {"both", nil}} {
		sc, err := selection.NewScheme(spec.setting, selection.SchemeOptions{RowObjects: 5, ColObjects: 4, Folds: spec.folds, FoldsName: "given"})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"kronrls", "twostep"} {
			d, _ := learn.Lookup(name)
			st := selection.Settings{Kernels: []kernel.Spec{kern.Spec()}, ColKernels: []kernel.Spec{kern.Spec()},
				Lambdas: grid, Scheme: sc, Measure: mse}
			if name == "twostep" {
				st.ColLambdas = grid[:2]
			}
			res, err := selection.Search(selection.Problem{Learner: d, Input: sidesInput(rs, cs, pairs, yy)}, st)
			if err != nil {
				t.Fatalf("%s %s: %v", name, sc.Name, err)
			}
			c := res.Curves[0]
			var colAt []float64
			if name == "twostep" {
				colAt = []float64{c.Best.ColLambda}
			}
			cvAt := designRuns(t, res.Learner.(learn.DesignValidator), sc.Design, []float64{c.Best.Lambda}, colAt)[0][0]
			if !sameValues(c.Predictions.RawMatrix().Data, cvAt.RawMatrix().Data) || c.Best != c.Curve[c.BestIndex] {
				t.Errorf("%s %s: best predictions are not the CV predictions at (%g, %g)", name, sc.Name, c.Best.Lambda, c.Best.ColLambda)
			}
			if spec.folds != nil && !math.IsNaN(c.Predictions.At(slices.IndexFunc(pairs, func(p Pair) bool { return p.Row == 2 }), 0)) {
				t.Errorf("%s %s: a pair of row 2, in no fold, is predicted", name, sc.Name)
			}
		}
	}
}
