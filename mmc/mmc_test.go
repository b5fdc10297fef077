package mmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
)

// randData draws m rows of d standard normal features around c centres.
func randData(m, d, c int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64()+3*float64((i%c+j)%c))
		}
	}
	return x
}

// naiveObjective is J (1) by retraining: λ Σ_c y_cᵀ(K + λI)⁻¹y_c with the
// explicit kernel matrix K and a fresh solve. O(m³).
func naiveObjective(t *testing.T, k *mat.Dense, lambda float64, labels []int, c int) float64 {
	t.Helper()
	m, _ := k.Dims()
	a := mat.DenseCopyOf(k)
	for i := 0; i < m; i++ {
		a.Set(i, i, a.At(i, i)+lambda)
	}
	y := mat.NewDense(m, c, nil)
	for i, l := range labels {
		for b := 0; b < c; b++ {
			y.Set(i, b, -1)
		}
		y.Set(i, l, 1)
	}
	var sol mat.Dense
	if err := sol.Solve(a, y); err != nil {
		t.Fatal(err)
	}
	j := 0.0
	for i := 0; i < m; i++ {
		for b := 0; b < c; b++ {
			j += y.At(i, b) * sol.At(i, b)
		}
	}
	return lambda * j
}

// effectiveKernel is the kernel matrix the factor represents: U diag(E) Uᵀ
// is K for Dual; for the low-rank forms it is built from the data (X̃X̃ᵀ,
// or K_{·B} K_BB⁺ K_{B·}) so that the factor is checked too.
func effectiveKernel(t *testing.T, x *mat.Dense, k kernel.Kernel, basis []int) *mat.Dense {
	t.Helper()
	km, err := k.Block(x, k.Points(x))
	if err != nil {
		t.Fatal(err)
	}
	if basis == nil {
		return km
	}
	m, _ := km.Dims()
	n := len(basis)
	kmb, kbb := mat.NewDense(m, n, nil), mat.NewDense(n, n, nil)
	for i := 0; i < m; i++ {
		for j, b := range basis {
			kmb.Set(i, j, km.At(i, b))
		}
	}
	for i, a := range basis {
		for j, b := range basis {
			kbb.Set(i, j, km.At(a, b))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(kbb); err != nil {
		t.Fatal(err)
	}
	var tmp, out mat.Dense
	tmp.Mul(kmb, &inv)
	out.Mul(&tmp, kmb.T())
	return &out
}

type setup struct {
	name  string
	k     kernel.Kernel
	req   factor.Request
	basis []int
}

func setups() []setup {
	return []setup{
		{"gaussian dual", kernel.Gaussian{Gamma: 0.3}, factor.Request{Form: factor.Dual}, nil},
		{"linear", kernel.Linear{Bias: 1}, factor.Request{Form: factor.Linear}, nil},
		{"gaussian sparse", kernel.Gaussian{Gamma: 0.3}, factor.Request{Form: factor.Sparse, Basis: []int{0, 3, 5, 8, 13, 17, 20, 22}}, []int{0, 3, 5, 8, 13, 17, 20, 22}},
	}
}

// TestMoveEqualsRetraining: every candidate move's ΔJ by (2) equals the
// difference of the retrained objectives, and after each move the kept W,
// RY, diag R and J equal those of a fresh setup — with R stored and
// without, on the dual, linear and sparse factors.
func TestMoveEqualsRetraining(t *testing.T) {
	const m, c, lambda = 24, 3, 0.7
	x := randData(m, 3, c, 5)
	for _, s := range setups() {
		d, err := factor.Build(x, s.k, s.req)
		if err != nil {
			t.Fatal(err)
		}
		kk := effectiveKernel(t, x, s.k, s.basis)
		g := Gains(d.E, lambda)
		kr, err := KernelR(kk, lambda)
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"factor", "U diag(g) Uᵀ", "Cholesky"} {
			var st *state
			switch how {
			case "factor":
				st = newState(d.U, g, nil, RandomLabels(m, c, 7, 0), c)
			case "U diag(g) Uᵀ":
				st = newState(nil, nil, FactorR(d.Factor, g), RandomLabels(m, c, 7, 0), c)
			default:
				st = newState(nil, nil, kr, RandomLabels(m, c, 7, 0), c)
			}
			dense := how
			rng := rand.New(rand.NewPCG(11, 2))
			for step := 0; step < 12; step++ {
				j0 := naiveObjective(t, kk, lambda, st.y, c)
				scale := math.Max(1, math.Abs(j0))
				// bound: J is a sum of m·c terms, each computed to a few ulps of m·c·scale
				tol := 1e-11 * float64(m*c) * scale
				if got := st.objective(); math.Abs(got-j0) > tol {
					t.Fatalf("%s R by %s step %d: J = %v, retrained %v", s.name, dense, step, got, j0)
				}
				for i := 0; i < m; i++ {
					for b := 0; b < c; b++ {
						if b == st.y[i] {
							continue
						}
						lab := append([]int(nil), st.y...)
						lab[i] = b
						want := naiveObjective(t, kk, lambda, lab, c) - j0
						if got := 4 * st.delta(i, b); math.Abs(got-want) > tol {
							t.Fatalf("%s R by %s step %d: ΔJ(%d→%d) = %v, retrained %v", s.name, dense, step, i, b, got, want)
						}
					}
				}
				i := rng.IntN(m)
				b := (st.y[i] + 1 + rng.IntN(c-1)) % c
				st.move(i, b)
				fresh := newState(d.U, g, nil, st.y, c)
				for k := range st.ry {
					if math.Abs(st.ry[k]-fresh.ry[k]) > tol {
						t.Fatalf("%s R by %s step %d: RY[%d] = %v, fresh %v", s.name, dense, step, k, st.ry[k], fresh.ry[k])
					}
				}
				for b := 0; b < c; b++ {
					if st.counts[b] != fresh.counts[b] {
						t.Fatalf("%s R by %s step %d: counts %v, fresh %v", s.name, dense, step, st.counts, fresh.counts)
					}
				}
			}
		}
	}
}
