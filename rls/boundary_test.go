package rls

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// Two rows are enough to train (and one is not). By hand, for x = (0, 1),
// y = (1, 3), the gaussian kernel with γ = 1 (k = e⁻¹ off the diagonal) and
// λ = 1/2: a = (K + λI)⁻¹y with the 2×2 inverse written out, fitted values
// Ka; leaving one row out leaves the one-point model k·y_j/(1 + λ).
func TestTwoRows(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{0, 1})
	y := mat.NewDense(2, 1, []float64{1, 3})
	r, err := Fit(x, y, Options{Kernel: kernel.Gaussian{Gamma: 1}})
	if err != nil {
		t.Fatalf("two rows: %v", err)
	}
	const lambda = 0.5
	s, err := r.Solve(lambda)
	if err != nil {
		t.Fatal(err)
	}
	k := math.Exp(-1)
	d := 1 + lambda
	det := d*d - k*k
	a1, a2 := (d*1-k*3)/det, (d*3-k*1)/det
	fitted := []float64{a1 + k*a2, k*a1 + a2}
	loo := []float64{k * 3 / d, k * 1 / d}
	got, _ := s.LeaveOneOut()
	for i := 0; i < 2; i++ {
		if e := math.Abs(s.Fitted().At(i, 0) - fitted[i]); e > 1e-14 {
			t.Errorf("fitted[%d] = %.17g, want %.17g", i, s.Fitted().At(i, 0), fitted[i])
		}
		if e := math.Abs(got.At(i, 0) - loo[i]); e > 1e-14 {
			t.Errorf("LOO[%d] = %.17g, want %.17g", i, got.At(i, 0), loo[i])
		}
	}
	if _, err := Fit(mat.NewDense(1, 1, []float64{0}), mat.NewDense(1, 1, []float64{1}), Options{Kernel: kernel.Gaussian{Gamma: 1}}); !errors.Is(err, learn.ErrShape) {
		t.Errorf("one row: err = %v, want learn.ErrShape", err)
	}
}

// K + λI must be positive definite: an eigenvalue e with e + λ = 0 makes it
// singular and is refused like e + λ < 0; just above, it is accepted. The
// precomputed kernel diag(3, −1, 1) has the eigenvalue −1 exactly.
func TestIndefiniteBoundary(t *testing.T) {
	kmat := mat.NewDense(3, 3, []float64{3, 0, 0, 0, -1, 0, 0, 0, 1})
	y := mat.NewDense(3, 1, []float64{1, 2, 3})
	r, err := Fit(kmat, y, Options{Kernel: kernel.Precomputed{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lambda float64
		ok     bool
	}{{0.5, false}, {1, false}, {1.5, true}} {
		s, err := r.Solve(c.lambda)
		if !c.ok {
			if !errors.Is(err, learn.ErrIndefinite) {
				t.Errorf("λ=%g: err = %v, want learn.ErrIndefinite", c.lambda, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("λ=%g: %v", c.lambda, err)
		}
		// K diagonal: fitted_i = k_i·y_i/(k_i + λ)
		for i, kv := range []float64{3, -1, 1} {
			want := kv * y.At(i, 0) / (kv + c.lambda)
			if g := s.Fitted().At(i, 0); math.Abs(g-want) > 1e-14*math.Abs(want) {
				t.Errorf("λ=%g: fitted[%d] = %g, want %g", c.lambda, i, g, want)
			}
		}
	}
}

// solveSPD solves A X = B by Cholesky and, when the Cholesky factorization
// fails (as rounding can make it for a nearly singular A), by LU; a singular
// A is an error. Checked on matrices whose solutions are known by hand.
func TestSolveSPDFallback(t *testing.T) {
	b := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	for _, c := range []struct {
		name string
		a    []float64
		inv  []float64 // A⁻¹, by hand
	}{
		{"positive definite", []float64{2, 1, 1, 2}, []float64{2.0 / 3, -1.0 / 3, -1.0 / 3, 2.0 / 3}},
		// symmetric, not positive definite: Cholesky fails, LU solves
		{"indefinite", []float64{1, 2, 2, 1}, []float64{-1.0 / 3, 2.0 / 3, 2.0 / 3, -1.0 / 3}},
		{"negative definite", []float64{-2, 0, 0, -4}, []float64{-0.5, 0, 0, -0.25}},
	} {
		x, err := solveSPD(mat.NewDense(2, 2, c.a), b)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if x == nil || !mat.EqualApprox(x, mat.NewDense(2, 2, c.inv), 1e-15) {
			t.Errorf("%s: A⁻¹ = %v, want %v", c.name, x, c.inv)
		}
	}
	if x, err := solveSPD(mat.NewDense(2, 2, []float64{1, 1, 1, 1}), b); err == nil {
		t.Errorf("singular A: solution %v, no error", x)
	}
}

// Degenerate data: all-zero features under the linear kernel without bias
// give K = 0, so the model, its hold-outs (|H| above the rank, the Woodbury
// path) and its leave-one-out predictions are 0.
func TestZeroFeatures(t *testing.T) {
	x := mat.NewDense(8, 2, nil)
	y := mat.NewDense(8, 1, []float64{1, -2, 3, 0.5, 4, -1, 2, 7})
	r, err := Fit(x, y, Options{Kernel: kernel.Linear{}, Form: learn.Linear})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Solve(0.3)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range [][]int{{0}, {1, 4, 6}, {0, 2, 3, 5, 7}} {
		got, err := s.HoldOut(h)
		if err != nil {
			t.Fatalf("H=%v: %v", h, err)
		}
		for i := range h {
			if v := got.At(i, 0); v != 0 {
				t.Errorf("H=%v: prediction %d = %g, want 0", h, i, v)
			}
		}
	}
	loo, _ := s.LeaveOneOut()
	for i := 0; i < 8; i++ {
		if v := loo.At(i, 0); v != 0 || s.Fitted().At(i, 0) != 0 {
			t.Errorf("row %d: LOO %g, fitted %g; want 0", i, v, s.Fitted().At(i, 0))
		}
	}
}
