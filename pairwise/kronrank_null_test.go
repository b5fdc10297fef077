package pairwise

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// TestKronRankNullSpace: with a column kernel of rank e = 2 ≪ q = 40 the
// centered kernel CGC has a null space of dimension q − 2, whose components
// of the dual solution are O(‖Y‖/λ) and predict 0; at λ = 1e-5 they would
// cancel only to about ε‖Y‖‖K‖‖G‖/λ — computed here and asserted ≥ 1e-9 of
// the scores' scale, so the case is hard — while the dual form, which
// leaves them out (nullSpace), agrees with the linear form to 1e-11 on the
// training pairs, on new pairs and on the hold-out-rows scores (single rows
// and folds of two, against retraining the linear form). The linear form
// has null spaces too — X₁ᵀX₁ with d = 12 > m = 10, and in the second case
// X₂ᵀCX₂ with e = 12 > q − 1 — whose components it leaves out likewise.
func TestKronRankNullSpace(t *testing.T) {
	for _, sh := range [][4]int{{10, 12, 40, 2}, {10, 12, 6, 12}} {
		testNullSpace(t, sh[0], sh[1], sh[2], sh[3])
	}
}

func testNullSpace(t *testing.T, m0, d, q0, e int) {
	const lambda = 1e-5
	c := randRankCase(9, m0, d, q0, e, lambda)
	x1, x2, y := dense2(c.X1), dense2(c.X2), dense2(c.Y)
	t1, t2 := dense2(c.T1), dense2(c.T2)
	lin := kernel.Linear{}
	rows, _ := NewSide(x1, lin, false)
	cols, _ := NewSide(x2, lin, false)
	m, q := y.Dims()
	var pairs []Pair
	var ys []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs, ys = append(pairs, Pair{i, j}), append(ys, y.At(i, j))
		}
	}
	kr, err := FitKronRank(rows, cols, pairs, ys)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kr.Solve(lambda)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := FitKronRankLinear(x1, x2, y)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := lr.Solve(lambda)
	want, _ := PredictLinear(w, x1, x2)
	hard := 2.22e-16 * mat.Norm(y, 2) * mat.Norm(rows.Matrix(), 2) * mat.Norm(cols.Matrix(), 2) / lambda / mat.Norm(want, 2)
	if hard < 1e-9 {
		t.Fatalf("the case is not hard: ε‖Y‖‖K‖‖G‖/λ is %.3g of the scores", hard)
	}
	if d := relDiff(s.Fitted(), want); d > 1e-11 {
		t.Errorf("training scores: dual and linear forms differ by %.3g", d)
	}
	var ri, cj []int
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			ri, cj = append(ri, i), append(cj, j)
		}
	}
	got, err := s.PairModel().Predict(t1, t2, ri, cj)
	if err != nil {
		t.Fatal(err)
	}
	wantNew, _ := PredictLinear(w, t1, t2)
	if d := relDiff(mat.NewDense(4, 5, got), wantNew); d > 1e-11 {
		t.Errorf("new pairs: dual and linear forms differ by %.3g", d)
	}
	pairFolds := [][]int{}
	for i := 0; i+1 < m; i += 2 {
		pairFolds = append(pairFolds, []int{i, i + 1})
	}
	for _, folds := range [][][]int{nil, pairFolds} {
		use := folds
		if use == nil {
			use = loo(m)
		}
		err = kr.CrossValidate(Design{Setting: Rows, RowFolds: folds}, []float64{lambda}, func(_ int, p *mat.Dense) error {
			for _, h := range use {
				held := map[int]bool{}
				for _, i := range h {
					held[i] = true
				}
				x1h := mat.NewDense(m-len(h), d, nil)
				yh := mat.NewDense(m-len(h), q, nil)
				for a, r := 0, 0; r < m; r++ {
					if !held[r] {
						x1h.SetRow(a, x1.RawRowView(r))
						yh.SetRow(a, y.RawRowView(r))
						a++
					}
				}
				lh, err := FitKronRankLinear(x1h, x2, yh)
				if err != nil {
					return err
				}
				wh, _ := lh.Solve(lambda)
				ph, _ := PredictLinear(wh, rowsOf(x1, h), x2)
				if dd := relDiff(rowsOf(p, h), ph); dd > 1e-11 {
					t.Errorf("%d×%d, %d×%d: rows %v left out: dual shortcut and retrained linear form differ by %.3g", m, d, q, e, h, dd)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d×%d, %d×%d: ε‖Y‖‖K‖‖G‖/λ is %.3g of the scores", m, d, q, e, hard)
}
