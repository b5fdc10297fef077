package greedy

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNonFiniteNamesRow: a candidate whose CV prediction overflows is an
// error wrapping ErrNonFinite that names the first non-finite prediction by
// its data row and output (in engine order, which folds permute), or, when
// every prediction is finite but the criterion overflows, says so. The
// overflowing entries are worked out by hand from the residual formulas
// (greedy.go) for one feature v and no bias, where A = I, u = g = v,
// c = λ + ‖v‖², r = vᵀY:
//
//   - leave-one-out, v = (.1, .2, .3, .4), λ = 1: c = 1.3, and row 2 of the
//     second output, labelled 1.5e308, has residual (c·y − v₂·r)/(c − v₂²)
//     whose c·y = 1.95e308 overflows; the other rows' are finite.
//   - folds {3, 2}, {5, 0}, {1, 4} (engine rows 3, 2, 5, 0, 1, 4), v = 1 at
//     rows 2 and 5, 0.01 elsewhere, λ = 0.01, second output 1e308 at row 2 and
//     −1e308 at row 5 (r = 0): the fold {3, 2} has δ = λ + Σ_{j∉H} v_j² =
//     1.0103 and E'₂ = y₂ + v₂(v_Hᵀy_H − r)/δ = 1e308·(1 + 1/1.0103) = +Inf,
//     the first non-finite residual in engine order (engine row 1); row 5
//     follows with −Inf.
//   - labels 1e200 and a column that changes nothing much: finite residuals
//     of order 1e200 whose squares overflow the mean.
func TestNonFiniteNamesRow(t *testing.T) {
	col := func(v ...float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }
	two := func(a, b []float64) *mat.Dense {
		y := mat.NewDense(len(a), 2, nil)
		y.SetCol(0, a)
		y.SetCol(1, b)
		return y
	}
	for _, tc := range []struct {
		name    string
		x, y    *mat.Dense
		lambda  float64
		folds   [][]int
		measure string
		want    string
	}{
		{"leave-one-out", col(.1, .2, .3, .4), two([]float64{1, 2, 3, 4}, []float64{0, 0, 1.5e308, 0}), 1, nil, "mse",
			"row 2, output 1 is +Inf"},
		{"leave-one-out cindex", col(.1, .2, .3, .4), two([]float64{1, 2, 3, 4}, []float64{0, 0, 1.5e308, 0}), 1, nil, "cindex",
			"row 2, output 1 is"},
		{"folds", col(.01, .01, 1, .01, .01, 1), two([]float64{1, 2, 3, 4, 5, 6}, []float64{0, 0, 1e308, 0, 0, -1e308}), .01,
			[][]int{{3, 2}, {5, 0}, {1, 4}}, "mse", "row 2, output 1 is +Inf"},
		{"folds cindex", col(.01, .01, 1, .01, .01, 1), two([]float64{1, 2, 3, 4, 5, 6}, []float64{0, 0, 1e308, 0, 0, -1e308}), .01,
			[][]int{{3, 2}, {5, 0}, {1, 4}}, "cindex", "row 2, output 1 is"},
		{"folds, -Inf first", col(.01, .01, 1, .01, .01, 1), two([]float64{1, 2, 3, 4, 5, 6}, []float64{0, 0, 1e308, 0, 0, -1e308}), .01,
			[][]int{{5, 0}, {3, 2}, {1, 4}}, "mse", "row 5, output 1 is -Inf"},
		{"overflowing mean", col(1, -1, 2, 0), col(1e200, -1e200, 2e200, 3e200), 1, nil, "mse",
			"the criterion overflows"},
		{"overflowing mean, folds", col(1, -1, 2, 0), col(1e200, -1e200, 2e200, 3e200), 1, [][]int{{0, 1}, {2, 3}}, "mse",
			"the criterion overflows"},
	} {
		for _, mem := range []Memory{Cache, Lean} {
			_, err := Select(tc.x, tc.y, Options{Lambdas: []float64{tc.lambda}, K: 1, Folds: tc.folds, Measure: mustMeasure(t, tc.measure), Memory: mem})
			if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (memory %d): %v; want %v naming %q", tc.name, mem, err, ErrNonFinite, tc.want)
			}
		}
	}
}
