package pairwise

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
)

// shapes are the (m, q) grids of the property tests; m ≠ q in all but one.
var shapes = [][2]int{{5, 7}, {8, 4}, {6, 6}}

// bruteKronHoldOut retrains without the pairs touching the rows hr or the
// columns hc (or, with heldPairs, without those pairs) and predicts test.
func bruteKronGrid(rows, cols *Side, y *mat.Dense, keep func(i, j int) bool, test []Pair, lambda float64) []float64 {
	m, q := y.Dims()
	var train []Pair
	var ty []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			if keep(i, j) {
				train = append(train, Pair{i, j})
				ty = append(ty, y.At(i, j))
			}
		}
	}
	return bruteKron(rows, cols, train, ty, test, lambda)
}

func allPairs(m, q int) []Pair {
	var out []Pair
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			out = append(out, Pair{i, j})
		}
	}
	return out
}

func pickPairs(p *mat.Dense, pairs []Pair) []float64 {
	out := make([]float64, len(pairs))
	for i, pr := range pairs {
		out[i] = p.At(pr.Row, pr.Col)
	}
	return out
}

// drawn is the labelled pairs a test drew, in the order given to the learner,
// and their label grid assembled by the test (labelGrid): what the brute
// force retrains on, never read back from the learner.
type drawn struct {
	pairs []Pair
	y     []float64
	grid  *mat.Dense
}

// kronCases runs f for every kernel, shape and λ with a trained learner and
// the data it was trained on.
func kronCases(t *testing.T, f func(t *testing.T, rng *rand.Rand, k *KronRLS, data drawn, lambda float64)) {
	for _, kc := range kernelCases {
		for _, sh := range shapes {
			rng := rand.New(rand.NewPCG(uint64(sh[0]), uint64(sh[1])))
			rows, cols := randSides(t, rng, sh[0], sh[1], kc.k)
			pairs, y := gridLabels(rng, rows, cols)
			k, err := FitKron(rows, cols, pairs, y, Options{})
			if err != nil {
				t.Fatal(err)
			}
			data := drawn{pairs, y, labelGrid(sh[0], sh[1], pairs, y, Heterogeneous)}
			for _, lambda := range lambdas {
				t.Run(kc.name+"/"+shapeName(sh)+"/"+lambdaName(lambda), func(t *testing.T) { f(t, rng, k, data, lambda) })
			}
		}
	}
}

func shapeName(sh [2]int) string { return string(rune('0'+sh[0])) + "x" + string(rune('0'+sh[1])) }

func lambdaName(l float64) string { return "lambda=" + formatG(l) }

func check(t *testing.T, what string, got, want []float64) {
	t.Helper()
	e, err := relErr(got, want)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	agree(t, what, e, tol)
}

func TestKronTraining(t *testing.T) {
	kronCases(t, func(t *testing.T, rng *rand.Rand, k *KronRLS, data drawn, lambda float64) {
		s, err := k.Solve(lambda)
		if err != nil {
			t.Fatal(err)
		}
		m, q := data.grid.Dims()
		all := allPairs(m, q)
		want := bruteKronGrid(k.rows, k.cols, data.grid, func(int, int) bool { return true }, all, lambda)
		check(t, "fitted", pickPairs(s.Fitted(), all), want)
		// predictions through the coefficients: K A G
		var f mat.Dense
		f.Mul(k.rows.Matrix(), s.Coefficients())
		f.Mul(&f, k.cols.Matrix())
		check(t, "K A G", pickPairs(&f, all), want)
	})
}

func TestKronSettingA(t *testing.T) {
	kronCases(t, func(t *testing.T, rng *rand.Rand, k *KronRLS, data drawn, lambda float64) {
		s, _ := k.Solve(lambda)
		loo, err := s.LeaveOneOut()
		if err != nil {
			t.Fatal(err)
		}
		y := data.grid
		want := make([]float64, len(data.pairs))
		for n, p := range data.pairs {
			want[n] = bruteKronGrid(k.rows, k.cols, y, func(i, j int) bool { return i != p.Row || j != p.Col }, []Pair{p}, lambda)[0]
		}
		check(t, "setting A", loo.RawMatrix().Data, want)
	})
}

func TestKronHoldOutPairs(t *testing.T) {
	kronCases(t, func(t *testing.T, rng *rand.Rand, k *KronRLS, data drawn, lambda float64) {
		s, _ := k.Solve(lambda)
		n := len(data.pairs)
		h := rng.Perm(n)[:5]
		got, err := s.HoldOut(h)
		if err != nil {
			t.Fatal(err)
		}
		held := map[Pair]bool{}
		var test []Pair
		for _, i := range h {
			held[data.pairs[i]] = true
			test = append(test, data.pairs[i])
		}
		want := bruteKronGrid(k.rows, k.cols, data.grid, func(i, j int) bool { return !held[Pair{i, j}] }, test, lambda)
		check(t, "hold-out of 5 pairs", got.RawMatrix().Data, want)
	})
}

func TestKronSettingsBC(t *testing.T) {
	kronCases(t, func(t *testing.T, rng *rand.Rand, k *KronRLS, data drawn, lambda float64) {
		s, _ := k.Solve(lambda)
		y := data.grid
		m, q := y.Dims()
		for _, tc := range []struct {
			name   string
			folds  [][]int
			rowsOf bool
		}{
			{"rows loo", nil, true},
			{"rows 3 folds", randFolds(rng, m, 3), true},
			{"rows partial folds", [][]int{{0, 2}, {m - 1}}, true},
			{"cols loo", nil, false},
			{"cols 2 folds", randFolds(rng, q, 2), false},
		} {
			var got *mat.Dense
			var err error
			if tc.rowsOf {
				got, err = s.HoldOutRows(tc.folds)
			} else {
				got, err = s.HoldOutCols(tc.folds)
			}
			if err != nil {
				t.Fatal(err)
			}
			n := m
			if !tc.rowsOf {
				n = q
			}
			folds := tc.folds
			if folds == nil {
				folds = loo(n)
			}
			want := nanDense(m, q)
			for _, f := range folds {
				in := map[int]bool{}
				for _, i := range f {
					in[i] = true
				}
				var test []Pair
				for _, p := range allPairs(m, q) {
					if tc.rowsOf && in[p.Row] || !tc.rowsOf && in[p.Col] {
						test = append(test, p)
					}
				}
				pred := bruteKronGrid(k.rows, k.cols, y, func(i, j int) bool {
					if tc.rowsOf {
						return !in[i]
					}
					return !in[j]
				}, test, lambda)
				for a, p := range test {
					want.Set(p.Row, p.Col, pred[a])
				}
			}
			e, err := matRelErr(got, want)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			agree(t, tc.name, e, tol)
		}
	})
}

// bruteBoth is setting D by retraining: for every row fold × column fold.
func bruteBoth(rows, cols *Side, y *mat.Dense, rf, cf [][]int, lambda float64) *mat.Dense {
	m, q := y.Dims()
	out := nanDense(m, q)
	for _, fr := range rf {
		for _, fc := range cf {
			var test []Pair
			for _, i := range fr {
				for _, j := range fc {
					test = append(test, Pair{i, j})
				}
			}
			pred := bruteKronGrid(rows, cols, y, func(i, j int) bool { return !slices.Contains(fr, i) && !slices.Contains(fc, j) }, test, lambda)
			for a, p := range test {
				out.Set(p.Row, p.Col, pred[a])
			}
		}
	}
	return out
}

func TestKronSettingD(t *testing.T) {
	for _, kc := range kernelCases {
		for _, sh := range shapes {
			rng := rand.New(rand.NewPCG(uint64(sh[0]), 99))
			rows, cols := randSides(t, rng, sh[0], sh[1], kc.k)
			pairs, y := gridLabels(rng, rows, cols)
			k, err := FitKron(rows, cols, pairs, y, Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, q := sh[0], sh[1]
			grid := labelGrid(m, q, pairs, y, Heterogeneous)
			for _, tc := range []struct {
				name   string
				rf, cf [][]int
			}{
				{"loo", nil, nil},
				{"folds", randFolds(rng, m, 2), randFolds(rng, q, 3)},
				{"row folds, col loo", randFolds(rng, m, 3), nil},
				{"row loo, col folds", nil, randFolds(rng, q, 2)},
			} {
				got, err := k.LeaveBothOut(tc.rf, tc.cf, lambdas)
				if err != nil {
					t.Fatal(err)
				}
				rf, cf := tc.rf, tc.cf
				if rf == nil {
					rf = loo(m)
				}
				if cf == nil {
					cf = loo(q)
				}
				for li, lambda := range lambdas {
					want := bruteBoth(rows, cols, grid, rf, cf, lambda)
					e, err := matRelErr(got[li], want)
					if err != nil {
						t.Fatalf("%s %s %s: %v", kc.name, shapeName(sh), tc.name, err)
					}
					agree(t, fmt.Sprintf("%s %s %s λ=%g", kc.name, shapeName(sh), tc.name, lambda), e, tol)
				}
			}
		}
	}
}

// Both orientations of the setting D engine agree with retraining: the cost
// model picks one; the other is forced here.
func TestKronSettingDOrientation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rows, cols := randSides(t, rng, 6, 4, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rf, cf := [][]int{{0, 3}, {1, 2, 5}, {4}}, loo(4)
	e1 := &engine{u: k.u, e: k.er, u2: k.u2, uty: k.utY(), cols: k.cols, m: 6, q: 4}
	a, err := e1.run(rf, cf, false, lambdas)
	if err != nil {
		t.Fatal(err)
	}
	var uty mat.Dense
	uty.Mul(k.v.T(), k.Matrix().T())
	e2 := &engine{u: k.v, e: k.ec, u2: k.v2, uty: &uty, cols: k.rows, m: 4, q: 6}
	b, err := e2.run(cf, rf, false, lambdas)
	if err != nil {
		t.Fatal(err)
	}
	for li, lambda := range lambdas {
		want := bruteBoth(rows, cols, labelGrid(6, 4, pairs, y, Heterogeneous), rf, cf, lambda)
		for name, got := range map[string]*mat.Dense{"columns": a[li], "rows": transpose(b[li])} {
			e, err := matRelErr(got, want)
			if err != nil {
				t.Fatalf("%s orientation λ=%g: %v", name, lambda, err)
			}
			agree(t, fmt.Sprintf("%s orientation λ=%g", name, lambda), e, tol)
		}
	}
}

func TestKronCrossValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows, cols := randSides(t, rng, 5, 6, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Design{{Setting: Pairs}, {Setting: Rows}, {Setting: Cols, ColFolds: randFolds(rng, 6, 3)}, {Setting: Both}} {
		n := 0
		err := k.CrossValidate(d, lambdas[:2], func(i int, p *mat.Dense) error {
			s, _ := k.Solve(lambdas[i])
			var want *mat.Dense
			switch d.Setting {
			case Pairs:
				want, _ = s.LeaveOneOutMatrix()
			case Rows:
				want, _ = s.HoldOutRows(nil)
			case Cols:
				want, _ = s.HoldOutCols(d.ColFolds)
			case Both:
				w, _ := k.LeaveBothOut(nil, nil, lambdas[i:i+1])
				want = w[0]
			}
			if e, err := matRelErr(p, want); err != nil || e > 1e-14 {
				t.Errorf("%s λ=%g: %v %v", d, lambdas[i], e, err)
			}
			n++
			return nil
		})
		if err != nil || n != 2 {
			t.Errorf("%s: %v after %d", d, err, n)
		}
	}
}

func TestKronErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	rows, cols := randSides(t, rng, 3, 4, kernelCases[0].k)
	pairs, y := gridLabels(rng, rows, cols)
	for _, tc := range []struct {
		name  string
		pairs []Pair
		y     []float64
		want  error
	}{
		{"incomplete", pairs[1:], y[1:], ErrIncomplete},
		{"duplicate", append(slices.Clone(pairs), pairs[0]), append(slices.Clone(y), 1), ErrPair},
		{"out of range", append(slices.Clone(pairs[1:]), Pair{3, 0}), y, ErrPair},
		{"no labels", nil, nil, learn.ErrShape},
		{"lengths", pairs, y[1:], learn.ErrShape},
	} {
		if _, err := FitKron(rows, cols, tc.pairs, tc.y, Options{}); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Solve(0); !errors.Is(err, learn.ErrLambda) {
		t.Errorf("λ = 0: %v", err)
	}
	for _, d := range []Design{{Setting: "x"}, {Setting: Pairs, RowFolds: [][]int{{0}}}, {Setting: Vertices},
		{Setting: Rows, RowFolds: [][]int{{0, 1, 2}}}, {Setting: Rows, RowFolds: [][]int{{5}}}, {Setting: Rows, ColFolds: [][]int{{0}}}} {
		if err := k.CrossValidate(d, []float64{1}, func(int, *mat.Dense) error { return nil }); !errors.Is(err, ErrSetting) {
			t.Errorf("design %+v: %v", d, err)
		}
	}
	if err := k.CrossValidate(Design{Setting: Pairs}, nil, nil); !errors.Is(err, learn.ErrLambda) {
		t.Errorf("empty grid: %v", err)
	}
}
