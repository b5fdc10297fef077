package kernel

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// Regression (reliability issue D): a feature value of 1e155 squares to +Inf in
// the gaussian kernel; CheckFinite names it instead of NaN appearing later.
func TestCheckFiniteOverflow(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{
		1, 2,
		3, -1e155,
		0, 1e10,
	})
	err := CheckFinite(Spec{Name: "gaussian", Gamma: 1}, x)
	var ve *ValueError
	if !errors.Is(err, ErrOverflow) || !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ValueError wrapping ErrOverflow", err)
	}
	if ve.Row != 1 || ve.Col != 1 || ve.Value != -1e155 || ve.N != 2 {
		t.Errorf("ValueError %+v, want row 1, column 1, value -1e155, N 2", ve)
	}
	for _, want := range []string{"data row 2, feature column 2", "overflow", "-1e+155", "gaussian"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// Without the large value, the kernel evaluates to finite values.
	x.Set(1, 1, -1)
	if err := CheckFinite(Spec{Name: "gaussian", Gamma: 1}, x); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFiniteKernels(t *testing.T) {
	limit := func(s Spec, d int) float64 {
		v, err := MaxValue(s, d)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		spec Spec
		x    mat.Matrix
		ok   bool
	}{
		{Spec{Name: "linear", Bias: 1}, mat.NewDense(1, 4, []float64{1e150, 0, 0, 0}), true},
		{Spec{Name: "linear", Bias: 1}, mat.NewDense(1, 4, []float64{1e154, 0, 0, 0}), false},
		{Spec{Name: "linear", Bias: 1}, mat.NewDense(1, 1, []float64{math.NaN()}), false},
		{Spec{Name: "polynomial", Gamma: 1, Degree: 3}, mat.NewDense(1, 2, []float64{1e40, 1}), true},
		{Spec{Name: "polynomial", Gamma: 1, Degree: 3}, mat.NewDense(1, 2, []float64{1e60, 1}), false},
		{Spec{Name: "precomputed"}, mat.NewDense(1, 2, []float64{1e300, -1e300}), true},
		{Spec{Name: "precomputed"}, mat.NewDense(1, 2, []float64{math.Inf(1), 0}), false},
		{Spec{Name: "gaussian", Gamma: 1}, &UnitRows{Index: []int{0}, N: 3}, true},
	}
	for _, c := range cases {
		err := CheckFinite(c.spec, c.x)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrOverflow)) {
			t.Errorf("%v on %v: err = %v, want ok = %v", c.spec, mat.Formatted(c.x), err, c.ok)
		}
	}
	// The bound is max|x|²·d: the same value fails in a wider dense row.
	v := limit(Spec{Name: "gaussian", Gamma: 1}, 100) * 1.01
	wide := mat.NewDense(1, 100, nil)
	wide.Set(0, 7, v)
	if err := CheckFinite(Spec{Name: "gaussian", Gamma: 1}, wide); err == nil {
		t.Error("value beyond the bound for d = 100 passed")
	}
	// Sparse rows are judged by their non-zeros, not by their width.
	const width = 1 << 40
	sp, err := matrix.NewCSR(2, width, []int{0, 1, 2}, []int{5, width - 1}, []float64{v, -v})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckFinite(Spec{Name: "gaussian", Gamma: 1}, sp); err != nil {
		t.Errorf("sparse rows of one value %g: %v", v, err)
	}
	// coef0^degree alone overflowing is a parameter error.
	if err := CheckFinite(Spec{Name: "polynomial", Gamma: 1, Coef0: 1e200, Degree: 2}, wide); !errors.Is(err, ErrOverflow) {
		t.Errorf("coef0 1e200, degree 2: %v", err)
	}
	if err := CheckFinite(Spec{Name: "sigmoid"}, wide); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown kernel: %v", err)
	}
}

// Every matrix that passes CheckFinite has finite kernel values with every
// other one that passes, at the extreme allowed values.
func TestCheckFiniteBoundHolds(t *testing.T) {
	for _, s := range []Spec{
		{Name: "linear", Bias: 1e300}, {Name: "gaussian", Gamma: 1e-300}, {Name: "gaussian", Gamma: 1},
		{Name: "polynomial", Gamma: 2, Coef0: 1, Degree: 5}, {Name: "polynomial", Gamma: 1e-10, Coef0: -3, Degree: 1},
	} {
		for _, d := range []int{1, 3, 50} {
			v, err := MaxValue(s, d)
			if err != nil {
				t.Fatal(err)
			}
			a := mat.NewDense(2, d, nil)
			b := mat.NewDense(2, d, nil)
			for j := 0; j < d; j++ {
				a.Set(0, j, v)
				a.Set(1, j, -v)
				b.Set(0, j, -v)
				b.Set(1, j, v*0.5)
			}
			for _, m := range []*mat.Dense{a, b} {
				if err := CheckFinite(s, m); err != nil {
					t.Fatalf("%v d=%d at the bound: %v", s, d, err)
				}
			}
			k, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, pair := range [][2]*mat.Dense{{a, b}, {a, a}, {b, a}} {
				g, err := k.Block(pair[0], pair[1])
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range g.RawMatrix().Data {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("%v d=%d: kernel value %v at |x| = %g", s, d, x, v)
					}
				}
			}
		}
	}
}

// Regression (reliability issue B): the kernel block of sparse rows of width
// 5·10⁹ (an svmlight index of 5e9) allocated O(width); now O(nnz).
func TestBlockHugeWidth(t *testing.T) {
	const width = 5_000_000_000
	x, err := matrix.NewCSR(2, width, []int{0, 1, 2}, []int{0, width - 1}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	dn := mat.NewDense(1, 3, []float64{1, 0, 2})
	small, _ := matrix.NewCSR(2, 3, []int{0, 1, 2}, []int{0, 2}, []float64{1, 2})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, k := range []Kernel{Linear{Bias: 1}, Gaussian{Gamma: 0.5}, Polynomial{Gamma: 1, Coef0: 1, Degree: 2}} {
		g, err := k.Block(x, x)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := g.Dims(); r != 2 || c != 2 {
			t.Fatalf("%d×%d", r, c)
		}
	}
	g, err := Linear{}.Block(dn, small) // dense rows against sparse ones
	runtime.ReadMemStats(&after)
	if err != nil || g.At(0, 1) != 4 || g.At(0, 0) != 1 {
		t.Fatalf("dense × sparse: %v %v", err, g)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("kernel blocks of 2 rows of width %d allocated %d bytes", width, got)
	}
}
