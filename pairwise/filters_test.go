package pairwise

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// diagSide is a side with the precomputed kernel matrix diag(e): its
// eigenvalues are e exactly.
func diagSide(t *testing.T, e ...float64) *Side {
	t.Helper()
	k := mat.NewDense(len(e), len(e), nil)
	for i, v := range e {
		k.Set(i, i, v)
	}
	s, err := NewSide(k, kernel.Precomputed{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestIndefiniteRefused: λI + G⊗K (Kronecker) and λ_r I + K, λ_c I + G (two
// steps) must be positive definite; a precomputed kernel with a negative
// eigenvalue is refused with learn.ErrIndefinite as soon as a product
// e_k s_l + λ (or e + λ) is ≤ 0 — zero included — and accepted when all are
// > 0. K = diag(1, −2), G = diag(0.5, 3): the products are 0.5, 3, −1, −6.
func TestIndefiniteRefused(t *testing.T) {
	rows, cols := diagSide(t, 1, -2), diagSide(t, 0.5, 3)
	pairs, y := gridWithout(2, 2, nil)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lambda float64
		ok     bool
		msg    string
	}{
		{6, false, "eigenvalue product -6 with lambda 6"}, // −6 + 6 = 0
		{5, false, "eigenvalue product -6 with lambda 5"},
		{6.5, true, ""},
	} {
		_, err := k.Solve(tc.lambda)
		if tc.ok != (err == nil) || !tc.ok && (!errors.Is(err, learn.ErrIndefinite) || !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("Kronecker λ = %g: %v; want ok %v, %q", tc.lambda, err, tc.ok, tc.msg)
		}
		// setting D and vertices factor per fold: the same refusal
		if _, err := k.LeaveBothOut(nil, nil, []float64{tc.lambda}); tc.ok != (err == nil) {
			t.Errorf("Kronecker setting D λ = %g: %v", tc.lambda, err)
		}
	}
	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lr, lc float64
		ok     bool
		msg    string
	}{
		{2, 1, false, "eigenvalue -2 with lambda 2"}, // −2 + 2 = 0
		{1, 1, false, "eigenvalue -2 with lambda 1"},
		{2.5, 1e-3, true, ""},
	} {
		_, err := ts.Solve(tc.lr, tc.lc)
		if tc.ok != (err == nil) || !tc.ok && (!errors.Is(err, learn.ErrIndefinite) || !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("two-step (%g, %g): %v; want ok %v, %q", tc.lr, tc.lc, err, tc.ok, tc.msg)
		}
		err = ts.CrossValidate(Design{Setting: Pairs}, []float64{tc.lr}, []float64{tc.lc}, func(int, int, *mat.Dense) error { return nil })
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, learn.ErrIndefinite) {
			t.Errorf("two-step cross-validation (%g, %g): %v", tc.lr, tc.lc, err)
		}
	}
	// the column side's eigenvalue: G = diag(−1, 2)
	ts2, err := FitTwoStep(cols, diagSide(t, -1, 2), pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts2.Solve(5, 1); !errors.Is(err, learn.ErrIndefinite) || !strings.Contains(err.Error(), "eigenvalue -1 with lambda 1") {
		t.Errorf("two-step column eigenvalue −1, λ_c = 1: %v", err)
	}
}

// TestConditioning: the condition numbers the solutions report, by hand for
// K = diag(1, −3), G = diag(2, 0.5): Kronecker (max|e|·max|s| + λ)/λ =
// (3·2 + 10)/10 = 1.6 at λ = 10; two-step (max|e| + λ_r)/λ_r ·
// (max|s| + λ_c)/λ_c = (3 + 4)/4 · (2 + 0.5)/0.5 = 8.75 at (4, 0.5).
func TestConditioning(t *testing.T) {
	rows, cols := diagSide(t, 1, -3), diagSide(t, 2, 0.5)
	pairs, y := gridWithout(2, 2, nil)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.Solve(10)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Conditioning(); math.Abs(c-1.6) > 1e-15 {
		t.Errorf("Kronecker conditioning %v, want 1.6", c)
	}
	ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ts.Solve(4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if c := s2.Conditioning(); math.Abs(c-8.75) > 1e-14 {
		t.Errorf("two-step conditioning %v, want 8.75", c)
	}
}

// TestHoldOutEveryCell: a hold-out that leaves no (row, column) cell to train
// on is refused — on a symmetric network holding out pairs with their
// mirrors can cover every cell although a given pair (a mirror given
// explicitly) stays in.
func TestHoldOutEveryCell(t *testing.T) {
	s, _ := labelSides(t, 2, 1)
	pairs := []Pair{{0, 0}, {0, 1}, {1, 0}, {1, 1}}
	k, err := FitKron(s, nil, pairs, []float64{1, 2, 2, 3}, Options{Symmetry: Symmetric})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := k.Solve(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sol.HoldOut([]int{0, 1, 3}); !errors.Is(err, learn.ErrHoldOut) {
		t.Errorf("(0,0), (0,1) with its mirror, (1,1): %v", err)
	}
	if _, err := sol.HoldOut([]int{0, 1}); err != nil {
		t.Errorf("(0,0), (0,1) with its mirror: %v", err)
	}
}
