package pairwise

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDesignString: the names of the doc comment ("pairs", "rows",
// "rows:folds(5)", "both:folds(5×5)") and the other settings alike.
func TestDesignString(t *testing.T) {
	f := func(n int) [][]int { return make([][]int, n) }
	for _, tc := range []struct {
		d    Design
		want string
	}{
		{Design{Setting: Pairs}, "pairs"},
		{Design{Setting: Rows}, "rows"},
		{Design{Setting: Rows, RowFolds: f(5)}, "rows:folds(5)"},
		{Design{Setting: Rows, ColFolds: f(5)}, "rows"},
		{Design{Setting: Cols}, "cols"},
		{Design{Setting: Cols, ColFolds: f(4)}, "cols:folds(4)"},
		{Design{Setting: Cols, RowFolds: f(4)}, "cols"},
		{Design{Setting: Both}, "both"},
		{Design{Setting: Both, RowFolds: f(5), ColFolds: f(5)}, "both:folds(5×5)"},
		{Design{Setting: Both, RowFolds: f(2), ColFolds: f(3)}, "both:folds(2×3)"},
		{Design{Setting: Both, RowFolds: f(3)}, "both:folds(3×0)"},
		{Design{Setting: Both, ColFolds: f(3)}, "both:folds(0×3)"},
		{Design{Setting: Vertices}, "vertices"},
		{Design{Setting: Vertices, RowFolds: f(6)}, "vertices:folds(6)"},
		{Design{Setting: Pairs, RowFolds: f(2)}, "pairs"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestSymmetryWords: String and ParseSymmetry use the same words, "" is
// none, anything else is an error wrapping ErrSetting.
func TestSymmetryWords(t *testing.T) {
	for _, s := range []Symmetry{Heterogeneous, Symmetric, Antisymmetric} {
		if got, err := ParseSymmetry(s.String()); err != nil || got != s {
			t.Errorf("%v: parsed back as %v, %v", s, got, err)
		}
	}
	if s, err := ParseSymmetry(""); err != nil || s != Heterogeneous {
		t.Errorf(`"": %v %v`, s, err)
	}
	if _, err := ParseSymmetry("skew"); !errors.Is(err, ErrSetting) {
		t.Errorf("skew: %v", err)
	}
	if got := Symmetry(7).String(); got != "Symmetry(7)" {
		t.Errorf("Symmetry(7): %q", got)
	}
}

// TestDesignCheck: every design a learner is asked for is validated against
// the data — the folds of each side the setting holds out checked (indices
// in range, disjoint, leaving something to train on), folds of a side the
// setting does not hold out refused — and valid designs run, including the
// smallest sides each setting allows (a single column for rows, a single row
// for cols). Both closed forms and both entry points are checked.
func TestDesignCheck(t *testing.T) {
	fit := func(m, q int, sym Symmetry) (*KronRLS, *TwoStep) {
		rows, cols := labelSides(t, m, q)
		if sym != Heterogeneous {
			cols = nil
		}
		pairs, y := gridWithout(m, q, nil)
		if sym == Antisymmetric {
			for i, p := range pairs {
				if p.Row == p.Col {
					y[i] = 0
				}
			}
			pairs, y = pairs[:0:0], y[:0:0]
			for i := 0; i < m; i++ {
				for j := i + 1; j < m; j++ {
					pairs, y = append(pairs, Pair{i, j}), append(y, float64(i+2*j))
				}
			}
		}
		if sym == Symmetric {
			pairs, y = pairs[:0:0], y[:0:0]
			for i := 0; i < m; i++ {
				for j := i; j < m; j++ {
					pairs, y = append(pairs, Pair{i, j}), append(y, float64(i+2*j))
				}
			}
		}
		k, err := FitKron(rows, cols, pairs, y, Options{Symmetry: sym})
		if err != nil {
			t.Fatal(err)
		}
		ts, err := FitTwoStep(rows, cols, pairs, y, Options{Symmetry: sym})
		if err != nil {
			t.Fatal(err)
		}
		return k, ts
	}
	run := func(k *KronRLS, ts *TwoStep, d Design) (error, error) {
		ek := k.CrossValidate(d, []float64{1}, func(_ int, p *mat.Dense) error { return finiteWhereFolds(p, d) })
		et := ts.CrossValidate(d, []float64{1}, []float64{2}, func(_, _ int, p *mat.Dense) error { return finiteWhereFolds(p, d) })
		return ek, et
	}
	for _, tc := range []struct {
		name string
		m, q int
		sym  Symmetry
		d    Design
		ok   bool
	}{
		{"pairs", 3, 4, Heterogeneous, Design{Setting: Pairs}, true},
		{"pairs with row folds", 3, 4, Heterogeneous, Design{Setting: Pairs, RowFolds: [][]int{{0}}}, false},
		{"pairs with column folds", 3, 4, Heterogeneous, Design{Setting: Pairs, ColFolds: [][]int{{0}}}, false},
		{"rows, one column", 3, 1, Heterogeneous, Design{Setting: Rows}, true},
		{"rows, two rows", 2, 3, Heterogeneous, Design{Setting: Rows}, true},
		{"rows, one row", 1, 3, Heterogeneous, Design{Setting: Rows}, false},
		{"row folds, one column", 4, 1, Heterogeneous, Design{Setting: Rows, RowFolds: [][]int{{0, 2}, {3}}}, true},
		{"row folds out of range", 3, 4, Heterogeneous, Design{Setting: Rows, RowFolds: [][]int{{0}, {3}}}, false},
		{"row folds every row", 3, 4, Heterogeneous, Design{Setting: Rows, RowFolds: [][]int{{0, 1, 2}}}, false},
		{"rows with column folds", 3, 4, Heterogeneous, Design{Setting: Rows, ColFolds: [][]int{{0}}}, false},
		{"cols, one row", 1, 3, Heterogeneous, Design{Setting: Cols}, true},
		{"cols, two columns", 3, 2, Heterogeneous, Design{Setting: Cols}, true},
		{"cols, one column", 3, 1, Heterogeneous, Design{Setting: Cols}, false},
		{"column folds, one row", 1, 4, Heterogeneous, Design{Setting: Cols, ColFolds: [][]int{{1}, {0, 3}}}, true},
		{"column folds out of range", 3, 4, Heterogeneous, Design{Setting: Cols, ColFolds: [][]int{{4}}}, false},
		{"column folds negative", 3, 4, Heterogeneous, Design{Setting: Cols, ColFolds: [][]int{{-1}}}, false},
		{"column folds overlap", 3, 4, Heterogeneous, Design{Setting: Cols, ColFolds: [][]int{{0, 1}, {1}}}, false},
		{"cols with row folds", 3, 4, Heterogeneous, Design{Setting: Cols, RowFolds: [][]int{{0}}}, false},
		{"both", 2, 2, Heterogeneous, Design{Setting: Both}, true},
		{"both, one column", 3, 1, Heterogeneous, Design{Setting: Both}, false},
		{"both, one row", 1, 3, Heterogeneous, Design{Setting: Both}, false},
		{"both folds", 3, 4, Heterogeneous, Design{Setting: Both, RowFolds: [][]int{{0, 2}}, ColFolds: [][]int{{1}, {3, 0}}}, true},
		{"both, bad row folds", 3, 4, Heterogeneous, Design{Setting: Both, RowFolds: [][]int{{3}}, ColFolds: [][]int{{1}}}, false},
		{"both, bad column folds", 3, 4, Heterogeneous, Design{Setting: Both, RowFolds: [][]int{{1}}, ColFolds: [][]int{{4}}}, false},
		{"both, bad column folds, rows alone", 3, 4, Heterogeneous, Design{Setting: Both, ColFolds: [][]int{{0, 1, 2, 3}}}, false},
		{"vertices on two sets", 3, 3, Heterogeneous, Design{Setting: Vertices}, false},
		{"unknown", 3, 4, Heterogeneous, Design{Setting: "diagonal"}, false},
		{"symmetric pairs", 3, 3, Symmetric, Design{Setting: Pairs}, true},
		{"symmetric vertices", 3, 3, Symmetric, Design{Setting: Vertices}, true},
		{"antisymmetric vertex folds", 4, 4, Antisymmetric, Design{Setting: Vertices, RowFolds: [][]int{{1, 3}, {0}}}, true},
		{"vertex folds out of range", 3, 3, Symmetric, Design{Setting: Vertices, RowFolds: [][]int{{3}}}, false},
		{"vertices with column folds", 3, 3, Symmetric, Design{Setting: Vertices, ColFolds: [][]int{{0}}}, false},
		{"vertices, one vertex", 1, 1, Symmetric, Design{Setting: Vertices}, false},
		{"rows on a network", 3, 3, Symmetric, Design{Setting: Rows}, false},
		{"cols on a network", 3, 3, Antisymmetric, Design{Setting: Cols}, false},
		{"both on a network", 3, 3, Symmetric, Design{Setting: Both}, false},
	} {
		k, ts := fit(tc.m, tc.q, tc.sym)
		ek, et := run(k, ts, tc.d)
		if tc.ok {
			if ek != nil || et != nil {
				t.Errorf("%s: Kronecker %v, two-step %v", tc.name, ek, et)
			}
			continue
		}
		if !errors.Is(ek, ErrSetting) || !errors.Is(et, ErrSetting) {
			t.Errorf("%s: Kronecker %v, two-step %v; want %v", tc.name, ek, et, ErrSetting)
		}
	}
}

// finiteWhereFolds checks that the CV predictions are finite exactly for the
// pairs the design predicts (NaN elsewhere).
func finiteWhereFolds(p *mat.Dense, d Design) error {
	m, q := p.Dims()
	inRows, inCols := covered(d.RowFolds, m), covered(d.ColFolds, q)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			want := true
			switch d.Setting {
			case Rows, Vertices:
				want = inRows[i]
			case Cols:
				want = inCols[j]
			case Both:
				want = inRows[i] && inCols[j]
			}
			v := p.At(i, j)
			if fin := !math.IsNaN(v) && !math.IsInf(v, 0); fin != want {
				return errors.New("prediction (" + string(rune('0'+i)) + ", " + string(rune('0'+j)) + ") is " + formatG(v))
			}
		}
	}
	return nil
}

// covered marks the objects of the folds (every object for nil folds).
func covered(folds [][]int, n int) []bool {
	in := make([]bool, n)
	for i := range in {
		in[i] = folds == nil
	}
	for _, f := range folds {
		for _, i := range f {
			in[i] = true
		}
	}
	return in
}
