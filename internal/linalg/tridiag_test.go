package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tridiagMatrix is T as a dense matrix.
func tridiagMatrix(t *Tridiagonal) *mat.Dense {
	n := t.Len()
	m := mat.NewDense(n, n, nil)
	for i, d := range t.D {
		m.Set(i, i, d)
	}
	for i, e := range t.E {
		m.Set(i, i+1, e)
		m.Set(i+1, i, e)
	}
	return m
}

// TestTridiagonal checks the reduction of random symmetric matrices with a
// known spectrum (some eigenvalues zero, some negative) through both
// builds of Q — the loaded library's reflectors and gonum's formed Q —
// against dense arithmetic that shares no code with it: Q·T·Qᵀ = A and
// QᵀQ = I to 1e-12·n·‖A‖; m·Q·Qᵀ = m; the Sturm count below σ equals the
// number of known eigenvalues below σ (σ half-way between two of them);
// and SolveShifted's x, mapped back by Q, solves (αA + λI)x = b to the
// backward-stable bound n·ε·κ.
func TestTridiagonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	for _, n := range []int{1, 2, 3, 7, 60, 200} {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = float64(i) - 2 // −2, −1, 0, 1, …
		}
		a := withSpectrum(rng, ev)
		for _, build := range []string{"backend", "gonum"} {
			t.Run(fmt.Sprintf("%s/n=%d", build, n), func(t *testing.T) {
				work := mat.DenseCopyOf(a)
				var tr *Tridiagonal
				var err error
				if build == "backend" {
					tr, err = TridiagonalInPlace(work)
				} else {
					tr = &Tridiagonal{D: make([]float64, n), E: make([]float64, max(n-1, 0)), n: n, refl: work.RawMatrix(), tau: make([]float64, max(n-1, 0))}
					if n == 1 {
						tr.D[0], work.RawMatrix().Data[0], tr.formed = a.At(0, 0), 1, true
					} else {
						err = tridiagGonum(tr)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				scale := float64(n) * 1e-12 * float64(n)
				q := mat.NewDense(n, n, nil)
				for i := 0; i < n; i++ {
					q.Set(i, i, 1)
				}
				if err := tr.MulQ(q, false); err != nil { // I·Q
					t.Fatal(err)
				}
				var qtq, back mat.Dense
				qtq.Mul(q.T(), q)
				for i := 0; i < n; i++ {
					qtq.Set(i, i, qtq.At(i, i)-1)
				}
				if d := mat.Norm(&qtq, math.Inf(1)); d > scale {
					t.Errorf("‖QᵀQ − I‖ = %.3g", d)
				}
				back.Product(q, tridiagMatrix(tr), q.T())
				if d := maxAbsDiff(&back, a); d > scale {
					t.Errorf("‖Q T Qᵀ − A‖ = %.3g", d)
				}
				m := mat.NewDense(3, n, nil)
				for i := range m.RawMatrix().Data {
					m.RawMatrix().Data[i] = rng.NormFloat64()
				}
				mq := mat.DenseCopyOf(m)
				if err := tr.MulQ(mq, false); err != nil {
					t.Fatal(err)
				}
				var want mat.Dense
				want.Mul(m, q)
				if d := maxAbsDiff(mq, &want); d > scale {
					t.Errorf("m·Q differs from the product with the formed Q by %.3g", d)
				}
				if err := tr.MulQ(mq, true); err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(mq, m); d > scale {
					t.Errorf("m·Q·Qᵀ differs from m by %.3g", d)
				}
				for k := 0; k <= n; k++ {
					sigma := float64(k) - 2.5 // between ev[k−1] and ev[k]
					if got := tr.CountBelow(sigma); got != k {
						t.Errorf("CountBelow(%g) = %d, want %d", sigma, got, k)
					}
				}
				if g := tr.GershgorinMax(); g < ev[n-1]-1e-12 {
					t.Errorf("Gershgorin bound %g below the largest eigenvalue %g", g, ev[n-1])
				}
				// (αA + λI) x = b with αA + λI positive definite
				alpha, lambda := 0.7, 1.5 // α·(−2) + λ = 0.1 > 0
				b := make([]float64, n)
				for i := range b {
					b[i] = rng.NormFloat64()
				}
				r := mat.NewDense(1, n, append([]float64(nil), b...))
				if err := tr.MulQ(r, false); err != nil { // (Qᵀb)ᵀ
					t.Fatal(err)
				}
				if !tr.SolveShifted(alpha, lambda, r.RawRowView(0), make([]float64, n)) {
					t.Fatal("positive definite system refused")
				}
				if err := tr.MulQ(r, true); err != nil { // (Q z)ᵀ
					t.Fatal(err)
				}
				var sh mat.Dense
				sh.Scale(alpha, a)
				for i := 0; i < n; i++ {
					sh.Set(i, i, sh.At(i, i)+lambda)
				}
				var res mat.VecDense
				res.MulVec(&sh, mat.NewVecDense(n, r.RawRowView(0)))
				res.SubVec(&res, mat.NewVecDense(n, b))
				kappa := (alpha*ev[n-1] + lambda) / (alpha*ev[0] + lambda)
				if d := mat.Norm(&res, math.Inf(1)); d > float64(n)*2.2e-16*kappa*10*mat.Norm(mat.NewVecDense(n, b), math.Inf(1)) {
					t.Errorf("residual of the shifted solve %.3g (κ %.3g)", d, kappa)
				}
				if n > 2 && tr.SolveShifted(alpha, 0.5, make([]float64, n), make([]float64, n)) { // α·(−2) + 0.5 < 0
					t.Error("an indefinite shifted system was solved")
				}
			})
		}
	}
}

// TestTridiagonalShapes: a non-square matrix and a block of the wrong width
// are errors.
func TestTridiagonalShapes(t *testing.T) {
	if _, err := TridiagonalInPlace(mat.NewDense(2, 3, nil)); err == nil {
		t.Error("2×3 accepted")
	}
	a := mat.NewDense(3, 3, []float64{2, 1, 0, 1, 2, 1, 0, 1, 2})
	tr, err := TridiagonalInPlace(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.MulQ(mat.NewDense(2, 4, nil), false); err == nil {
		t.Error("a 2×4 block accepted by a 3×3 Q")
	}
}

// TestInverseSPD: InverseSPDInPlace of matrices with a known spectrum
// (condition number κ = 100) times the original is I to 1e-12·κ·n, both
// triangles filled (symmetric exactly); an indefinite matrix is
// ErrNotPosDef.
func TestInverseSPD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, n := range []int{1, 2, 9, 130} {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = 1 + 99*float64(i)/float64(max(n-1, 1))
		}
		a := withSpectrum(rng, ev)
		inv := mat.DenseCopyOf(a)
		if err := InverseSPDInPlace(inv); err != nil {
			t.Fatal(err)
		}
		var p mat.Dense
		p.Mul(a, inv)
		for i := 0; i < n; i++ {
			p.Set(i, i, p.At(i, i)-1)
			for j := 0; j < i; j++ {
				if inv.At(i, j) != inv.At(j, i) {
					t.Fatalf("n=%d: inverse not symmetric at (%d, %d)", n, i, j)
				}
			}
		}
		if d := mat.Norm(&p, math.Inf(1)); d > 1e-12*100*float64(n) {
			t.Errorf("n=%d: ‖A·A⁻¹ − I‖ = %.3g", n, d)
		}
	}
	bad := withSpectrum(rng, []float64{1, -1, 2})
	if err := InverseSPDInPlace(bad); !errors.Is(err, ErrNotPosDef) {
		t.Errorf("indefinite: %v", err)
	}
}
