package pairwise

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSolveSPDFallback: solveSPD solves by Cholesky and, when Cholesky fails
// (rounding can make a hold-out system lose definiteness), by LU; a singular
// system is an error. Checked on hand-solved 2×2 systems: a positive
// definite one, an indefinite one that Cholesky refuses, and a singular one.
func TestSolveSPDFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		x    []float64 // nil: an error
	}{
		// [4 2; 2 3] x = (8, 7): x = (1.25, 1.5)
		{"definite", []float64{4, 2, 2, 3}, []float64{8, 7}, []float64{1.25, 1.5}},
		// [1 2; 2 1] (eigenvalues 3, −1) x = (5, 4): x = (1, 2)
		{"indefinite", []float64{1, 2, 2, 1}, []float64{5, 4}, []float64{1, 2}},
		// [0 1; 1 0] x = (3, −2): x = (−2, 3); Cholesky fails at the first pivot
		{"zero pivot", []float64{0, 1, 1, 0}, []float64{3, -2}, []float64{-2, 3}},
		{"singular", []float64{1, 1, 1, 1}, []float64{1, 2}, nil},
	} {
		x, err := solveSPD(mat.NewDense(2, 2, tc.a), mat.NewDense(2, 1, tc.b))
		if tc.x == nil {
			if err == nil {
				t.Errorf("%s: no error, x = %v", tc.name, mat.Formatted(x))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for i, want := range tc.x {
			if d := x.At(i, 0) - want; d > 1e-15 || d < -1e-15 {
				t.Errorf("%s: x = %v, want %v", tc.name, mat.Formatted(x.T()), tc.x)
				break
			}
		}
	}
}
