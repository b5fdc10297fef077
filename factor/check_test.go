package factor

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// NewDual accepts |K_ij − K_ji| ≤ 1e-10·max|K| and refuses more, relative to
// the scale of K; the zero matrix is symmetric.
func TestSymmetryTolerance(t *testing.T) {
	base := func(scale float64) *mat.Dense {
		// a positive definite 4×4 matrix times scale
		k := mat.NewDense(4, 4, []float64{
			4, 1, 0.5, 0.2,
			1, 3, 0.4, 0.1,
			0.5, 0.4, 2, 0.3,
			0.2, 0.1, 0.3, 1,
		})
		k.Scale(scale, k)
		return k
	}
	for _, tc := range []struct {
		name   string
		scale  float64
		i, j   int
		asym   float64 // added to K[i,j], relative to max|K| = 4·scale
		refuse bool
	}{
		{"symmetric", 1, 0, 0, 0, false},
		{"rounding-level asymmetry, large K", 1e4, 3, 2, 1e-12, false},
		{"rounding-level asymmetry, small K", 1e-4, 3, 2, 1e-12, false},
		{"asymmetry above tolerance, large K", 1e4, 3, 2, 1e-9, true},
		{"asymmetry above tolerance, small K", 1e-4, 3, 2, 1e-9, true},
		{"asymmetry in the last column", 1, 1, 3, 1e-6, true},
		{"NaN off the diagonal", 1, 2, 0, math.NaN(), true},
	} {
		k := base(tc.scale)
		k.Set(tc.i, tc.j, k.At(tc.i, tc.j)+tc.asym*4*tc.scale)
		_, err := NewDual(k)
		switch {
		case tc.refuse && !errors.Is(err, ErrNotSymmetric):
			t.Errorf("%s: err = %v, want ErrNotSymmetric", tc.name, err)
		case !tc.refuse && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	f, err := NewDual(mat.NewDense(3, 3, nil))
	if err != nil {
		t.Fatalf("zero matrix: %v", err)
	}
	for _, e := range f.E {
		if e != 0 {
			t.Errorf("zero matrix: eigenvalues %v", f.E)
		}
	}
}

// The constructors refuse missing and mis-shaped inputs with ErrShape.
func TestConstructorShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"NewDual(nil)", func() error { _, err := NewDual(nil); return err }},
		{"NewDual(empty)", func() error { _, err := NewDual(&mat.Dense{}); return err }},
		{"NewLinear(nil)", func() error { _, err := NewLinear(nil); return err }},
		{"NewLinear(empty)", func() error { _, err := NewLinear(&mat.Dense{}); return err }},
		{"NewSparse K_BB 3×2", func() error {
			_, err := NewSparse(mat.NewDense(5, 3, nil), mat.NewDense(3, 2, nil))
			return err
		}},
		{"NewSparse K_BB 2×3", func() error {
			_, err := NewSparse(mat.NewDense(5, 3, nil), mat.NewDense(2, 3, nil))
			return err
		}},
	} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", tc.name, r)
				}
			}()
			err = tc.call()
		}()
		if !errors.Is(err, ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", tc.name, err)
		}
	}
	// n = m basis vectors are allowed: K_{·B} square
	kbb := mat.NewDense(2, 2, []float64{2, 1, 1, 2})
	f, err := NewSparse(kbb, kbb)
	if err != nil {
		t.Fatalf("NewSparse with n = m: %v", err)
	}
	if e := maxDiff(reconstruct(f), kbb); e > 1e-14 {
		t.Errorf("NewSparse with n = m: ‖UEUᵀ − K‖ = %g", e)
	}
}

// BasisMap keeps the eigenvalues of K_BB above n·ε·max μ, whatever the scale
// of K_BB — also a small eigenvalue of a small, well-conditioned enough K_BB —
// and drops the ones at or below it; W and Wi satisfy WᵀK_BB W = I and
// Wi Wiᵀ = K_BB (on the kept space). A K_BB without a positive eigenvalue
// is refused.
func TestBasisMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		kbb  *mat.Dense
		keep int
	}{
		{"diag(1e-4, 1e-12)", mat.NewDense(2, 2, []float64{1e-4, 0, 0, 1e-12}), 2},
		{"diag(1e4, 1e-4)", mat.NewDense(2, 2, []float64{1e4, 0, 0, 1e-4}), 2},
		{"duplicate basis vector", mat.NewDense(2, 2, []float64{1, 1, 1, 1}), 1},
		{"duplicate, large scale", mat.NewDense(3, 3, []float64{1e6, 1e6, 0, 1e6, 1e6, 0, 0, 0, 5e5}), 2},
	} {
		w, wi, err := BasisMap(tc.kbb)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		n, keep := w.Dims()
		if keep != tc.keep {
			t.Errorf("%s: kept %d eigenvalues, want %d", tc.name, keep, tc.keep)
			continue
		}
		var kw, wkw, wwt mat.Dense
		kw.Mul(tc.kbb, w)
		wkw.Mul(w.T(), &kw)
		if e := maxDiff(&wkw, eye(keep)); e > 1e-9 {
			t.Errorf("%s: ‖WᵀKW − I‖ = %g", tc.name, e)
		}
		wwt.Mul(wi, wi.T())
		if e := maxDiff(&wwt, tc.kbb); e > 1e-12*mat.Norm(tc.kbb, math.Inf(1)) {
			t.Errorf("%s: ‖Wi Wiᵀ − K_BB‖ = %g", tc.name, e)
		}
		if r, c := wi.Dims(); r != n || c != keep {
			t.Errorf("%s: Wi is %d×%d, W %d×%d", tc.name, r, c, n, keep)
		}
	}
	for _, kbb := range []*mat.Dense{mat.NewDense(2, 2, nil), mat.NewDense(2, 2, []float64{-1, 0, 0, -2})} {
		if w, _, err := BasisMap(kbb); err == nil {
			t.Errorf("BasisMap(%v) = %v, want an error", mat.Formatted(kbb), mat.Formatted(w))
		}
	}
}

func eye(n int) *mat.Dense {
	out := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		out.Set(i, i, 1)
	}
	return out
}
