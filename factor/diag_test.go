package factor

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// hatDiag returns diag(A (AᵀA)⁻¹ Aᵀ), the leverages of the rows of a
// full-column-rank A, by a dense solve written here (independent of the SVD
// the factor uses).
func hatDiag(t *testing.T, a mat.Matrix) []float64 {
	t.Helper()
	m, _ := a.Dims()
	var ata, sol mat.Dense
	ata.Mul(a.T(), a)
	if err := sol.Solve(&ata, a.T()); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, m)
	for i := 0; i < m; i++ {
		out[i] = mat.Dot(a.(mat.RowViewer).RowView(i), sol.ColView(i))
	}
	return out
}

// The three forms of one data set, with the matrix whose column space U spans.
func threeForms(t *testing.T) (x *mat.Dense, forms map[string]*Data, span map[string]*mat.Dense) {
	t.Helper()
	x = randX(rand.New(rand.NewPCG(11, 4)), 14, 3)
	g := kernel.Gaussian{Gamma: 0.4}
	basis := []int{1, 4, 6, 9, 13}
	forms = map[string]*Data{}
	for name, req := range map[string]struct {
		k   kernel.Kernel
		req Request
	}{
		"dual":   {g, Request{Form: Dual}},
		"linear": {kernel.Linear{Bias: 1.5}, Request{Form: Linear}},
		"sparse": {g, Request{Form: Sparse, Basis: basis}},
	} {
		d, err := Build(x, req.k, req.req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		forms[name] = d
	}
	kb, _ := g.Block(x, kernel.Rows(x, basis))
	span = map[string]*mat.Dense{"linear": WithBias(x, 1.5), "sparse": kb}
	return x, forms, span
}

// Lev is ‖U_i‖²: 1 for every row of a Dual factor, and for the low-rank forms
// the diagonal of the projector onto U's column space — the hat matrix
// A(AᵀA)⁻¹Aᵀ of the bias-augmented data (Linear) or of K_{·B} (Sparse).
func TestLeverageIsHatDiagonal(t *testing.T) {
	_, forms, span := threeForms(t)
	for name, d := range forms {
		if len(d.Lev) != d.Rows() {
			t.Fatalf("%s: %d leverages for %d rows", name, len(d.Lev), d.Rows())
		}
		want := make([]float64, d.Rows())
		if a, ok := span[name]; ok {
			want = hatDiag(t, a)
		} else {
			for i := range want {
				want[i] = 1
			}
		}
		sum := 0.0
		for i, l := range d.Lev {
			sum += l
			if math.Abs(l-want[i]) > 1e-9 {
				t.Errorf("%s: Lev[%d] = %.15g, hat matrix diagonal %.15g", name, i, l, want[i])
			}
		}
		// the trace of a projector is its rank
		if math.Abs(sum-float64(d.Rank())) > 1e-9 {
			t.Errorf("%s: Σ Lev = %g, rank %d", name, sum, d.Rank())
		}
	}
}

// Diag(φ) is the diagonal of U diag(φ) Uᵀ, formed densely here.
func TestDiagMatchesDenseProduct(t *testing.T) {
	_, forms, _ := threeForms(t)
	for name, d := range forms {
		r := d.Rank()
		phi := make([]float64, r)
		for k := range phi {
			phi[k] = 1 / (d.E[k] + 0.3) // ψ(λ) of the hat matrix, say
		}
		m := d.Rows()
		ud := mat.DenseCopyOf(d.U)
		for i := 0; i < m; i++ {
			for k := 0; k < r; k++ {
				ud.Set(i, k, ud.At(i, k)*phi[k])
			}
		}
		var full mat.Dense
		full.Mul(ud, d.U.T())
		got := d.Diag(phi)
		if len(got) != m {
			t.Fatalf("%s: Diag has %d entries for %d rows", name, len(got), m)
		}
		for i := 0; i < m; i++ {
			if want := full.At(i, i); math.Abs(got[i]-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("%s: Diag[%d] = %.15g, (U diag(φ) Uᵀ)_ii = %.15g", name, i, got[i], want)
			}
		}
		// φ = 1 gives the leverages
		ones := make([]float64, r)
		for k := range ones {
			ones[k] = 1
		}
		for i, v := range d.Diag(ones) {
			if math.Abs(v-d.Lev[i]) > 1e-12 {
				t.Errorf("%s: Diag(1)[%d] = %g, Lev %g", name, i, v, d.Lev[i])
			}
		}
	}
}

// Complement is true exactly when I − UUᵀ is not zero: never for the Dual
// form (U is an orthogonal m×m matrix), and for the Linear and Sparse factors
// here, whose rank is below m.
func TestComplement(t *testing.T) {
	_, forms, _ := threeForms(t)
	for name, d := range forms {
		m := d.Rows()
		var p mat.Dense
		p.Mul(d.U, d.U.T())
		norm := 0.0
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				v := p.At(i, j)
				if i == j {
					v -= 1
				}
				norm += v * v
			}
		}
		nonzero := math.Sqrt(norm) > 0.5 // a non-zero projector has norm ≥ 1
		if d.Complement() != nonzero {
			t.Errorf("%s (rank %d of %d): Complement() = %v, ‖I − UUᵀ‖_F = %g", name, d.Rank(), m, d.Complement(), math.Sqrt(norm))
		}
	}
}

// PerturbUp moves every eigenvalue up by an amount in (0, δ], δ =
// len·ε·max|e|, the amounts unequal (a cluster is split) and spread over the
// interval (a low-discrepancy sequence), and scaling e scales them.
func TestPerturbUp(t *testing.T) {
	const eps = 2.220446049250313e-16
	for _, tc := range []struct {
		name string
		e    []float64
	}{
		// a cluster of equal values well below the largest: their shifts are
		// resolved to ~1e-7 relative
		{"cluster", append([]float64{1e6}, repeat(1, 19)...)},
		{"small scale", append([]float64{-3e-5}, repeat(1e-11, 15)...)},
		{"zeros", append(repeat(0, 12), 4)},
	} {
		emax := 0.0
		for _, v := range tc.e {
			emax = math.Max(emax, math.Abs(v))
		}
		delta := float64(len(tc.e)) * eps * emax
		out := PerturbUp(tc.e)
		if len(out) != len(tc.e) {
			t.Fatalf("%s: %d values out of %d", tc.name, len(out), len(tc.e))
		}
		seen := map[float64]int{}
		largest := 0.0
		for k, v := range out {
			shift := v - tc.e[k]
			ulp := math.Nextafter(math.Abs(tc.e[k]), math.Inf(1)) - math.Abs(tc.e[k])
			if !(shift > 0) || shift > delta+ulp {
				t.Errorf("%s: e[%d] = %g moved by %g, want in (0, %g]", tc.name, k, tc.e[k], shift, delta)
			}
			if j, ok := seen[v]; ok && tc.e[j] == tc.e[k] {
				t.Errorf("%s: equal e[%d] and e[%d] moved by the same amount", tc.name, j, k)
			}
			seen[v] = k
			if math.Abs(tc.e[k]) < emax {
				largest = math.Max(largest, shift)
			}
		}
		if largest < delta/2 {
			t.Errorf("%s: largest shift %g of the cluster, want the amounts spread over (0, %g]", tc.name, largest, delta)
		}
		// scale invariance: PerturbUp(c·e) = c·PerturbUp(e) up to rounding
		const c = 1024.0
		scaled := make([]float64, len(tc.e))
		for k, v := range tc.e {
			scaled[k] = c * v
		}
		for k, v := range PerturbUp(scaled) {
			if want := c * out[k]; math.Abs(v-want) > 4*eps*math.Abs(want) {
				t.Errorf("%s: PerturbUp(%g·e)[%d] = %g, want %g", tc.name, c, k, v, want)
			}
		}
	}
	if got := PerturbUp(nil); len(got) != 0 {
		t.Errorf("PerturbUp(nil) = %v", got)
	}
}

// Perturbed is the factor with PerturbUp's eigenvalues; the original is untouched.
func TestPerturbedFactor(t *testing.T) {
	_, forms, _ := threeForms(t)
	d := forms["sparse"]
	before := append([]float64(nil), d.E...)
	p := d.Perturbed()
	want := PerturbUp(before)
	for k := range before {
		if d.E[k] != before[k] {
			t.Fatalf("Perturbed changed the original's E[%d]", k)
		}
		if p.E[k] != want[k] {
			t.Errorf("Perturbed().E[%d] = %g, PerturbUp gives %g", k, p.E[k], want[k])
		}
	}
	if p.U != d.U || p.T != d.T || p.G != d.G || p.Form != d.Form {
		t.Error("Perturbed does not share U, T, G and the form")
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
