package pairwise

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
)

// twoStepLambdas are the (λ_r, λ_c) pairs of the property tests: every λ of
// the range on each side, paired with a different one on the other.
var twoStepLambdas = [][2]float64{{1e-4, 1e2}, {1e-2, 1e-4}, {1, 1}, {1e2, 1e-2}, {1e4, 1e4}, {1e-4, 1e-4}}

// twoStepCases runs f for every kernel, shape and (λ_r, λ_c) with a trained
// learner and the data it was trained on (drawn: the label grid assembled by
// the test).
func twoStepCases(t *testing.T, f func(t *testing.T, rng *rand.Rand, ts *TwoStep, data drawn, s *TwoStepSolution)) {
	for _, kc := range kernelCases {
		for _, sh := range shapes {
			rng := rand.New(rand.NewPCG(uint64(sh[0]), uint64(10+sh[1])))
			rows, cols := randSides(t, rng, sh[0], sh[1], kc.k)
			pairs, y := gridLabels(rng, rows, cols)
			ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
			if err != nil {
				t.Fatal(err)
			}
			data := drawn{pairs, y, labelGrid(sh[0], sh[1], pairs, y, Heterogeneous)}
			for _, l := range twoStepLambdas {
				s, err := ts.Solve(l[0], l[1])
				if err != nil {
					t.Fatal(err)
				}
				t.Run(kc.name+"/"+shapeName(sh)+"/"+formatG(l[0])+","+formatG(l[1]), func(t *testing.T) { f(t, rng, ts, data, s) })
			}
		}
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestTwoStepTraining(t *testing.T) {
	twoStepCases(t, func(t *testing.T, rng *rand.Rand, ts *TwoStep, data drawn, s *TwoStepSolution) {
		m, q := data.grid.Dims()
		want := bruteTwoStep(ts.rows, ts.cols, data.grid, seq(m), seq(q), seq(m), seq(q), s.RowLambda, s.ColLambda)
		checkMat(t, "fitted", s.Fitted(), want)
		// Predicting through the coefficients, K·A·G in floating point, carries
		// the forward error ε·‖K‖·‖A‖·‖G‖ of the products: with ‖A‖ up to
		// ‖Y‖/(λ_r λ_c) for a rank-deficient kernel (linear, λ = 1e-4) that
		// exceeds 1e-8·‖F‖, whatever the accuracy of A; the bound is the tolerance then.
		a := s.Coefficients()
		var f mat.Dense
		f.Mul(ts.rows.Matrix(), a)
		f.Mul(&f, ts.cols.Matrix())
		bound := 16 * 2.2e-16 * mat.Norm(ts.rows.Matrix(), 2) * mat.Norm(a, 2) * mat.Norm(ts.cols.Matrix(), 2) / mat.Norm(want, 2)
		e, err := matRelErr(&f, want)
		if err != nil {
			t.Fatalf("K A G: %v", err)
		}
		agreeAs(t, classCoefficients, "K A G", e, max(tol, bound))
		var r mat.Dense
		r.Sub(data.grid, want)
		checkMat(t, "residuals", s.Residuals(), &r)
	})
}

func checkMat(t *testing.T, what string, got, want *mat.Dense) {
	t.Helper()
	e, err := matRelErr(got, want)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	agree(t, what, e, tol)
}

// Setting A: the imputed value is a fixed point of retraining with the label
// replaced by it.
func TestTwoStepSettingA(t *testing.T) {
	twoStepCases(t, func(t *testing.T, rng *rand.Rand, ts *TwoStep, data drawn, s *TwoStepSolution) {
		p, err := s.LeaveOneOutMatrix()
		if err != nil {
			t.Fatal(err)
		}
		m, q := data.grid.Dims()
		got, want := make([]float64, 0, m*q), make([]float64, 0, m*q)
		for i := 0; i < m; i++ {
			for j := 0; j < q; j++ {
				y := mat.DenseCopyOf(data.grid)
				y.Set(i, j, p.At(i, j))
				f := bruteTwoStep(ts.rows, ts.cols, y, seq(m), seq(q), []int{i}, []int{j}, s.RowLambda, s.ColLambda)
				got, want = append(got, p.At(i, j)), append(want, f.At(0, 0))
			}
		}
		check(t, "setting A fixed point", got, want)
		loo, _ := s.LeaveOneOut()
		check(t, "pair order", loo.RawMatrix().Data, pickPairs(p, data.pairs))
	})
}

// bruteTwoStepDesign retrains two-step RLS on the label grid y per fold block.
func bruteTwoStepDesign(ts *TwoStep, y *mat.Dense, d Design, lr, lc float64) *mat.Dense {
	m, q := y.Dims()
	out := nanDense(m, q)
	rf, cf := d.RowFolds, d.ColFolds
	switch d.Setting {
	case Rows:
		cf = [][]int{nil}
	case Cols:
		rf = [][]int{nil}
	}
	if rf == nil {
		rf = loo(m)
	}
	if cf == nil {
		cf = loo(q)
	}
	for _, fr := range rf {
		for _, fc := range cf {
			testR, testC := fr, fc
			if fr == nil {
				testR = seq(m)
			}
			if fc == nil {
				testC = seq(q)
			}
			p := bruteTwoStep(ts.rows, ts.cols, y, cv.Complement(fr, m), cv.Complement(fc, q), testR, testC, lr, lc)
			for a, i := range testR {
				for b, j := range testC {
					out.Set(i, j, p.At(a, b))
				}
			}
		}
	}
	return out
}

func TestTwoStepSettingsBCD(t *testing.T) {
	twoStepCases(t, func(t *testing.T, rng *rand.Rand, ts *TwoStep, data drawn, s *TwoStepSolution) {
		m, q := data.grid.Dims()
		for _, d := range []Design{
			{Setting: Rows},
			{Setting: Rows, RowFolds: randFolds(rng, m, 3)},
			{Setting: Rows, RowFolds: [][]int{{1, 3}}},
			{Setting: Cols},
			{Setting: Cols, ColFolds: randFolds(rng, q, 2)},
			{Setting: Both},
			{Setting: Both, RowFolds: randFolds(rng, m, 2), ColFolds: randFolds(rng, q, 3)},
			{Setting: Both, RowFolds: [][]int{{0}, {2, 4}}, ColFolds: nil},
		} {
			var got *mat.Dense
			var err error
			switch d.Setting {
			case Rows:
				got, err = s.HoldOutRows(d.RowFolds)
			case Cols:
				got, err = s.HoldOutCols(d.ColFolds)
			case Both:
				got, err = s.LeaveBothOut(d.RowFolds, d.ColFolds)
			}
			if err != nil {
				t.Fatal(err)
			}
			checkMat(t, d.String(), got, bruteTwoStepDesign(ts, data.grid, d, s.RowLambda, s.ColLambda))
		}
	})
}

// The grid path (outer side chosen by size) gives what Solve gives per point.
func TestTwoStepCrossValidate(t *testing.T) {
	for _, sh := range [][2]int{{4, 7}, {7, 4}} {
		rng := rand.New(rand.NewPCG(11, uint64(sh[0])))
		rows, cols := randSides(t, rng, sh[0], sh[1], kernelCases[0].k)
		pairs, y := gridLabels(rng, rows, cols)
		ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
		if err != nil {
			t.Fatal(err)
		}
		grid := labelGrid(sh[0], sh[1], pairs, y, Heterogeneous)
		rg, cg := []float64{1e-3, 1, 10}, []float64{1e-2, 5}
		for _, d := range []Design{{Setting: Pairs}, {Setting: Rows}, {Setting: Cols, ColFolds: randFolds(rng, sh[1], 2)},
			{Setting: Both}, {Setting: Both, RowFolds: randFolds(rng, sh[0], 2)}} {
			seen := 0
			err := ts.CrossValidate(d, rg, cg, func(i, j int, p *mat.Dense) error {
				want := bruteTwoStepDesign(ts, grid, d, rg[i], cg[j])
				if d.Setting == Pairs {
					s, _ := ts.Solve(rg[i], cg[j])
					want, _ = s.LeaveOneOutMatrix()
				}
				checkMat(t, d.String(), p, want)
				seen++
				return nil
			})
			if err != nil || seen != len(rg)*len(cg) {
				t.Errorf("%s: %v, %d points", d, err, seen)
			}
		}
	}
}
