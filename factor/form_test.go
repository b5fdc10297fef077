package factor

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// AutoForm's documented rule: Sparse when a basis is given; Linear for the
// linear kernel with bias ≥ 0 when the features, counting the bias column,
// are fewer than the rows (d+1 < m); Dual otherwise. Build with Auto builds
// that form.
func TestAutoForm(t *testing.T) {
	const m = 6
	for _, tc := range []struct {
		name  string
		d     int
		k     kernel.Kernel
		basis []int
		want  Form
	}{
		{"gaussian", 2, kernel.Gaussian{Gamma: 1}, nil, Dual},
		{"gaussian with basis", 2, kernel.Gaussian{Gamma: 1}, []int{0, 2}, Sparse},
		{"linear with basis", 2, kernel.Linear{Bias: 1}, []int{1, 3, 5}, Sparse},
		{"linear, bias 1", 2, kernel.Linear{Bias: 1}, nil, Linear},
		{"linear, bias 0", 2, kernel.Linear{Bias: 0}, nil, Linear},
		{"linear, negative bias", 2, kernel.Linear{Bias: -1}, nil, Dual},
		{"linear, d+1 = m-1", m - 2, kernel.Linear{Bias: 1}, nil, Linear},
		{"linear, d+1 = m", m - 1, kernel.Linear{Bias: 1}, nil, Dual},
		{"linear, d = m", m, kernel.Linear{Bias: 1}, nil, Dual},
		{"polynomial", 1, kernel.Polynomial{Gamma: 1, Coef0: 1, Degree: 2}, nil, Dual},
	} {
		x := randX(rand.New(rand.NewPCG(3, uint64(tc.d))), m, tc.d)
		if got := AutoForm(x, tc.k, tc.basis); got != tc.want {
			t.Errorf("%s: AutoForm = %v, want %v", tc.name, got, tc.want)
		}
		d, err := Build(x, tc.k, Request{Auto: true, Basis: tc.basis})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Form != tc.want {
			t.Errorf("%s: Build(Auto) built %v, want %v", tc.name, d.Form, tc.want)
		}
		// whatever the form, it reproduces the kernel matrix (Nyström over the basis)
		if tc.basis == nil {
			k, _ := tc.k.Block(x, x)
			if e := maxDiff(reconstruct(d.Factor), k); e > 1e-10*(1+mat.Norm(k, math.Inf(1))) {
				t.Errorf("%s: ‖UEUᵀ − K‖ = %g", tc.name, e)
			}
		}
	}
}

// The linear form takes bias 0 (no extra column: K = XXᵀ) and refuses a
// negative bias, whose kernel is not a Gram matrix of real features.
func TestLinearFormBias(t *testing.T) {
	x := randX(rand.New(rand.NewPCG(5, 5)), 9, 3)
	d, err := Build(x, kernel.Linear{Bias: 0}, Request{Form: Linear})
	if err != nil {
		t.Fatalf("bias 0: %v", err)
	}
	var xxt mat.Dense
	xxt.Mul(x, x.T())
	if e := maxDiff(reconstruct(d.Factor), &xxt); e > 1e-12 {
		t.Errorf("bias 0: ‖UEUᵀ − XXᵀ‖ = %g", e)
	}
	if d.Rank() != 3 || d.Bias != 0 {
		t.Errorf("bias 0: rank %d, bias %g; want 3 and 0", d.Rank(), d.Bias)
	}
	if _, err := Build(x, kernel.Linear{Bias: -0.5}, Request{Form: Linear}); err == nil {
		t.Error("linear form with bias −0.5 accepted")
	}
}

// Data without features: the linear kernel without bias is the zero matrix
// and refused with ErrShape; with a bias, or with the gaussian kernel, the
// kernel matrix is the constant bias (1) and factors fine. Data with features
// and bias 0 are fine.
func TestNoFeatures(t *testing.T) {
	const m = 5
	empty, err := matrix.NewCSR(m, 0, make([]int, m+1), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := randX(rand.New(rand.NewPCG(6, 6)), m, 2)
	for _, tc := range []struct {
		name    string
		x       mat.Matrix
		k       kernel.Kernel
		req     Request
		refused bool
		konst   float64 // every kernel value, when > 0
	}{
		{"linear, no bias", empty, kernel.Linear{}, Request{Auto: true}, true, 0},
		{"linear, no bias, dual", empty, kernel.Linear{}, Request{Form: Dual}, true, 0},
		{"linear, bias 2", empty, kernel.Linear{Bias: 2}, Request{Auto: true}, false, 2},
		{"linear, bias 2, dual", empty, kernel.Linear{Bias: 2}, Request{Form: Dual}, false, 2},
		{"gaussian", empty, kernel.Gaussian{Gamma: 1}, Request{Form: Dual}, false, 1},
		{"linear with features, no bias", x, kernel.Linear{}, Request{Form: Dual}, false, 0},
		{"linear with features, no bias, auto", x, kernel.Linear{}, Request{Auto: true}, false, 0},
	} {
		d, err := Build(tc.x, tc.k, tc.req)
		if tc.refused {
			if !errors.Is(err, ErrShape) {
				t.Errorf("%s: err = %v, want ErrShape", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if tc.konst > 0 {
			rec := reconstruct(d.Factor)
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					if math.Abs(rec.At(i, j)-tc.konst) > 1e-12 {
						t.Fatalf("%s: K[%d,%d] = %g, want %g", tc.name, i, j, rec.At(i, j), tc.konst)
					}
				}
			}
		}
	}
}

// WithBias appends the column √bias·1 (none for bias 0), the same for CSR
// and dense data.
func TestWithBias(t *testing.T) {
	// [[0 2 0], [0 0 0], [1 0 -3], [0 5 0]]
	csr, err := matrix.NewCSR(4, 3, []int{0, 1, 1, 3, 4}, []int{1, 0, 2, 1}, []float64{2, 1, -3, 5})
	if err != nil {
		t.Fatal(err)
	}
	dense := mat.NewDense(4, 3, []float64{0, 2, 0, 0, 0, 0, 1, 0, -3, 0, 5, 0})
	for _, bias := range []float64{0, 4} {
		cols := 3
		if bias != 0 {
			cols = 4
		}
		want := mat.NewDense(4, cols, nil)
		for i := 0; i < 4; i++ {
			for j := 0; j < 3; j++ {
				want.Set(i, j, dense.At(i, j))
			}
			if bias != 0 {
				want.Set(i, 3, 2) // √4
			}
		}
		for name, x := range map[string]mat.Matrix{"csr": csr, "dense": dense} {
			got := WithBias(x, bias)
			if r, c := got.Dims(); r != 4 || c != cols {
				t.Errorf("%s, bias %g: %d×%d, want 4×%d", name, bias, r, c, cols)
				continue
			}
			if !mat.Equal(got, want) {
				t.Errorf("%s, bias %g:\n%v\nwant\n%v", name, bias, mat.Formatted(got), mat.Formatted(want))
			}
		}
	}
}

// A basis of every row (in any order) is allowed, and its Nyström factor is
// the kernel matrix itself: K K⁻¹ K = K.
func TestFullBasis(t *testing.T) {
	const m = 8
	x := randX(rand.New(rand.NewPCG(7, 7)), m, 3)
	g := kernel.Gaussian{Gamma: 0.5}
	basis := []int{3, 0, 7, 1, 6, 2, 5, 4}
	d, err := Build(x, g, Request{Form: Sparse, Basis: basis})
	if err != nil {
		t.Fatalf("basis of all %d rows: %v", m, err)
	}
	k, _ := g.Block(x, x)
	if e := maxDiff(reconstruct(d.Factor), k); e > 1e-9 {
		t.Errorf("full basis: ‖UEUᵀ − K‖ = %g", e)
	}
	if err := CheckBasis(basis, m); err != nil {
		t.Errorf("CheckBasis(all rows): %v", err)
	}
	if err := CheckBasis(append(basis, 0), m); !errors.Is(err, ErrBasis) {
		t.Errorf("CheckBasis(m+1 rows): %v", err)
	}
}

// KernelOnly returns the kernel matrix, computed here from its formula, and
// Dual-form data without an eigendecomposition; a precomputed kernel that is
// not symmetric is refused.
func TestKernelOnly(t *testing.T) {
	const m = 7
	x := randX(rand.New(rand.NewPCG(8, 8)), m, 2)
	g := kernel.Gaussian{Gamma: 0.7}
	d, km, err := KernelOnly(x, g)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || km == nil {
		t.Fatalf("KernelOnly = %v, %v", d, km)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			dx, dy := x.At(i, 0)-x.At(j, 0), x.At(i, 1)-x.At(j, 1)
			if want := math.Exp(-0.7 * (dx*dx + dy*dy)); math.Abs(km.At(i, j)-want) > 1e-13 {
				t.Fatalf("K[%d,%d] = %g, want %g", i, j, km.At(i, j), want)
			}
		}
	}
	if d.Form != Dual || d.U != nil || d.E != nil || d.Points == nil || d.Width != 2 || d.Kernel != g {
		t.Errorf("KernelOnly data: form %v, U %v, E %v, points %v, width %d", d.Form, d.U, d.E, d.Points, d.Width)
	}
	pre := mat.NewDense(3, 3, []float64{2, 1, 0, 1, 2, 1, 0, 0.5, 2})
	if _, _, err := KernelOnly(pre, kernel.Precomputed{}); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("asymmetric precomputed kernel: err = %v, want ErrNotSymmetric", err)
	}
	pre.Set(2, 1, 1)
	if _, km, err := KernelOnly(pre, kernel.Precomputed{}); err != nil || !mat.Equal(km, pre) {
		t.Errorf("symmetric precomputed kernel: %v, K = %v", err, km)
	}
}
