package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// randSparse returns an r×d matrix with about density·r·d standard-normal non-zeros,
// as both a dense matrix and a CSR.
func randSparse(rng *rand.Rand, r, d int, density float64) (*mat.Dense, *matrix.CSR) {
	dn := mat.NewDense(r, d, nil)
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < r; i++ {
		for j := 0; j < d; j++ {
			if rng.Float64() < density {
				v := rng.NormFloat64()
				dn.Set(i, j, v)
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		indptr = append(indptr, len(idx))
	}
	c, err := matrix.NewCSR(r, d, indptr, idx, val)
	if err != nil {
		panic(err)
	}
	return dn, c
}

// direct evaluates k(x, z) from its definition, one pair at a time.
func direct(s Spec, x, z []float64) float64 {
	dot, dist := 0.0, 0.0
	for i := range x {
		dot += x[i] * z[i]
		dist += (x[i] - z[i]) * (x[i] - z[i])
	}
	switch s.Name {
	case "linear":
		return dot + s.Bias
	case "gaussian":
		return math.Exp(-s.Gamma * dist)
	case "polynomial":
		return math.Pow(s.Gamma*dot+s.Coef0, float64(s.Degree))
	}
	panic(s.Name)
}

func row(m *mat.Dense, i int) []float64 { return mat.Row(nil, i, m) }

func TestBlockAgainstDirectFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	specs := []Spec{
		{Name: "linear", Bias: 1},
		{Name: "linear", Bias: 0},
		{Name: "gaussian", Gamma: 0.1},
		{Name: "gaussian", Gamma: 2},
		{Name: "polynomial", Gamma: 0.5, Coef0: 1, Degree: 3},
		{Name: "polynomial", Gamma: 1, Coef0: 0, Degree: 2},
	}
	// 150 rows exceed the parallel threshold, 5 rows do not.
	for _, shape := range [][3]int{{5, 4, 6}, {150, 90, 12}} {
		ra, rb, d := shape[0], shape[1], shape[2]
		ad, as := randSparse(rng, ra, d, 0.4)
		bd, bs := randSparse(rng, rb, d, 0.4)
		inputs := []struct {
			name string
			a, b mat.Matrix
		}{
			{"dense×dense", ad, bd},
			{"csr×csr", as, bs},
			{"csr×dense", as, bd},
			{"dense×csr", ad, bs},
		}
		for _, s := range specs {
			k, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range inputs {
				t.Run(fmt.Sprintf("%v/%s/%d", s, in.name, ra), func(t *testing.T) {
					g, err := k.Block(in.a, in.b)
					if err != nil {
						t.Fatal(err)
					}
					if r, c := g.Dims(); r != ra || c != rb {
						t.Fatalf("block is %d×%d, want %d×%d", r, c, ra, rb)
					}
					for i := 0; i < ra; i++ {
						for j := 0; j < rb; j++ {
							want := direct(s, row(ad, i), row(bd, j))
							if got := g.At(i, j); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
								t.Fatalf("K[%d,%d] = %v, want %v", i, j, got, want)
							}
						}
					}
				})
			}
		}
	}
}

// TestGaussianFarFromOrigin: raw features far from the origin, where
// ‖x‖² + ‖z‖² − 2x·z cancels badly unless the rows are centred first. The
// diagonal of a Gram matrix is exactly 1; every other value is the direct
// formula's to a relative tolerance derived from both computations:
//
//   - Block shifts the rows by the mean of z's rows. Every value and that mean
//     lie in [5e3, 2e4] (asserted), so each shifted value is exact
//     (Sterbenz) and a − b = x − z exactly. The expansion's squared norms and
//     inner product carry errors ≤ γ_d‖a‖², γ_d‖b‖², γ_d‖a‖‖b‖ (γ_d ≈ dε) and
//     its two additions 2ε(‖a‖ + ‖b‖)², so the distance is off by at most
//     (d + 2)ε(‖a‖ + ‖b‖)².
//   - direct subtracts exactly too, and its d squares and d − 1 additions of
//     non-negative terms make the distance s off by ≤ (d + 1)ε·s.
//   - exp(−γs) turns an absolute error δ of s into a relative γ·δ, plus ε
//     for γ·s and ε for exp, on each side.
//
// So |got − want| ≤ 2·want·(γε[(d + 2)(‖a‖ + ‖b‖)² + (d + 1)s] + 4ε), a factor
// 2 for the second-order terms; here at most about 1e-13 relative, asserted
// below 1e-8, so a 1e-7 relative error fails (an absolute 1e-10 would miss
// it, and more, on values from 5e-10 to 1e-3).
func TestGaussianFarFromOrigin(t *testing.T) {
	const eps = 0x1p-52
	rng := rand.New(rand.NewPCG(2, 2))
	x, _ := randSparse(rng, 40, 7, 1)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] += 1e4
	}
	z, _ := randSparse(rng, 30, 7, 1)
	for i := range z.RawMatrix().Data {
		z.RawMatrix().Data[i] += 1e4
	}
	for _, v := range append(slices.Clone(x.RawMatrix().Data), z.RawMatrix().Data...) {
		if v < 5e3 || v > 2e4 {
			t.Fatalf("value %v outside [5e3, 2e4]: the shifted values need not be exact", v)
		}
	}
	spec := Spec{Name: "gaussian", Gamma: 0.5}
	k, _ := New(spec)
	g, err := k.Block(x, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		if g.At(i, i) != 1 {
			t.Fatalf("k(x%d, x%d) = %v", i, i, g.At(i, i))
		}
	}
	c, err := k.Block(x, z)
	if err != nil {
		t.Fatal(err)
	}
	const d = 7
	mu := make([]float64, d)
	for j := 0; j < 30; j++ {
		for n := 0; n < d; n++ {
			mu[n] += z.At(j, n) / 30
		}
	}
	norm := func(r []float64) float64 {
		s := 0.0
		for n, v := range r {
			s += (v - mu[n]) * (v - mu[n])
		}
		return math.Sqrt(s)
	}
	worst, lo, hi := 0.0, math.Inf(1), 0.0
	for i := 0; i < 40; i++ {
		for j := 0; j < 30; j++ {
			xi, zj := row(x, i), row(z, j)
			want := direct(spec, xi, zj)
			dist := 0.0
			for n := range xi {
				dist += (xi[n] - zj[n]) * (xi[n] - zj[n])
			}
			na, nb := norm(xi), norm(zj)
			rel := 2 * (spec.Gamma*eps*(float64(d+2)*(na+nb)*(na+nb)+float64(d+1)*dist) + 4*eps)
			if rel > 1e-8 {
				t.Fatalf("K[%d,%d]: tolerance %.2g relative would not catch 1e-7", i, j, rel)
			}
			got := c.At(i, j)
			worst = math.Max(worst, math.Abs(got-want)/(rel*want))
			lo, hi = math.Min(lo, want), math.Max(hi, want)
			if !(math.Abs(got-want) <= rel*want) {
				t.Fatalf("K[%d,%d] = %.17g, want %.17g (tolerance %.2g relative)", i, j, got, want, rel)
			}
		}
	}
	t.Logf("values %.2g … %.2g; the largest difference %.2g of its tolerance", lo, hi, worst)
}

func TestPrecomputed(t *testing.T) {
	kmat := mat.NewDense(3, 3, []float64{
		2, 1, 0,
		1, 3, 1,
		0, 1, 4,
	})
	k, err := New(Spec{Name: "precomputed"})
	if err != nil {
		t.Fatal(err)
	}
	p := k.Points(kmat)
	g, err := k.Block(kmat, p)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(g, kmat) {
		t.Fatalf("Gram of precomputed kernel = %v, want the data", mat.Formatted(g))
	}
	// basis {2, 0}: K(X, B) = X[:, {2, 0}]
	sub, err := k.Block(kmat, Rows(p, []int{2, 0}))
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 2, []float64{0, 2, 1, 1, 4, 0})
	if !mat.Equal(sub, want) {
		t.Fatalf("K(X, B) = %v, want %v", mat.Formatted(sub), mat.Formatted(want))
	}
	// a test row given sparse
	test, _ := matrix.NewCSR(1, 3, []int{0, 2}, []int{0, 2}, []float64{5, 7})
	got, err := k.Block(test, Rows(p, []int{2, 1, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, mat.NewDense(1, 3, []float64{7, 0, 5})) {
		t.Fatalf("sparse precomputed row = %v", mat.Formatted(got))
	}
	if _, err := k.Block(kmat, kmat); !errors.Is(err, ErrShape) {
		t.Fatalf("precomputed against raw rows: err = %v, want ErrShape", err)
	}
}

func TestRowsKeepsKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	d, s := randSparse(rng, 6, 4, 0.5)
	rows := []int{4, 1, 1}
	sd := Rows(d, rows)
	ss := Rows(s, rows).(*matrix.CSR)
	for k, r := range rows {
		for j := 0; j < 4; j++ {
			if sd.At(k, j) != d.At(r, j) || ss.At(k, j) != d.At(r, j) {
				t.Fatalf("Rows mismatch at %d,%d", k, j)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		spec Spec
		want error
	}{
		{Spec{Name: "rbf"}, ErrUnknown},
		{Spec{Name: "gaussian", Gamma: 0}, ErrParam},
		{Spec{Name: "gaussian", Gamma: -1}, ErrParam},
		{Spec{Name: "gaussian", Gamma: math.NaN()}, ErrParam},
		{Spec{Name: "polynomial", Gamma: 1, Degree: 0}, ErrParam},
		{Spec{Name: "polynomial", Gamma: 1, Degree: 2, Coef0: math.Inf(1)}, ErrParam},
		{Spec{Name: "linear", Bias: math.NaN()}, ErrParam},
	}
	for _, c := range cases {
		if _, err := New(c.spec); !errors.Is(err, c.want) {
			t.Errorf("New(%+v): err = %v, want %v", c.spec, err, c.want)
		}
	}
	_, err := Linear{}.Block(mat.NewDense(2, 3, nil), mat.NewDense(2, 4, nil))
	if !errors.Is(err, ErrShape) {
		t.Errorf("width mismatch: err = %v", err)
	}
	for _, name := range Names() {
		if _, err := New(Defaults(name)); err != nil {
			t.Errorf("defaults of %s: %v", name, err)
		}
	}
}

func ExampleGaussian_Block() {
	x := mat.NewDense(2, 2, []float64{0, 0, 1, 1})
	k := Gaussian{Gamma: 0.5}
	g, _ := k.Block(x, x)
	fmt.Printf("%.4f\n", mat.Formatted(g))
	// Output:
	// ⎡1.0000  0.3679⎤
	// ⎣0.3679  1.0000⎦
}
