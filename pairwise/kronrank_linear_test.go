package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteLinearRank is the oracle of the linear conditional ranking: the
// dense normal equations (X₁ᵀX₁ ⊗ X₂ᵀCX₂ + λI) vec W = vec(X₁ᵀ Y C X₂) with
// C = I − 11ᵀ/q formed explicitly and solved by LU (row-major vec:
// vec(A W B) = (A ⊗ Bᵀ) vec W), then W projected onto the row spaces of X₁
// (on the left) and C X₂ (on the right), found by gonum's SVD: the
// minimizer lies there, and the solve's components in the null spaces are
// rounding divided by λ. Nothing here is the code it checks.
func bruteLinearRank(x1, x2, y *mat.Dense, lambda float64) *mat.Dense {
	_, d := x1.Dims()
	q, e := x2.Dims()
	c := mat.NewDense(q, q, nil)
	for i := 0; i < q; i++ {
		for j := 0; j < q; j++ {
			c.Set(i, j, -1/float64(q))
		}
		c.Set(i, i, 1-1/float64(q))
	}
	var cx2, a, b, rhs, ycx mat.Dense
	cx2.Mul(c, x2)
	a.Mul(x1.T(), x1)
	b.Mul(x2.T(), &cx2)
	ycx.Mul(y, &cx2)
	rhs.Mul(x1.T(), &ycx)
	n := mat.NewDense(d*e, d*e, nil)
	for i := 0; i < d; i++ {
		for k := 0; k < d; k++ {
			for j := 0; j < e; j++ {
				for l := 0; l < e; l++ {
					n.Set(i*e+j, k*e+l, a.At(i, k)*b.At(l, j))
				}
			}
		}
	}
	for i := 0; i < d*e; i++ {
		n.Set(i, i, n.At(i, i)+lambda)
	}
	var w mat.VecDense
	if err := w.SolveVec(n, mat.NewVecDense(d*e, mat.DenseCopyOf(&rhs).RawMatrix().Data)); err != nil {
		panic(err)
	}
	wm := mat.NewDense(d, e, mat.DenseCopyOf(&w).RawMatrix().Data)
	var p1, out mat.Dense
	p1.Mul(rowSpaceProjector(x1), wm) // P₁ W, P₁ symmetric
	out.Mul(&p1, rowSpaceProjector(&cx2))
	return &out
}

// nullLeak is the size of W's components outside the row spaces of X₁ (on
// the left) and C X₂ (on the right), relative to ‖W‖: ‖(I − P₁) W‖ +
// ‖W (I − P₂)‖.
func nullLeak(w, x1, x2 *mat.Dense) float64 {
	q, _ := x2.Dims()
	cx2 := mat.DenseCopyOf(x2)
	for j := 0; j < cx2.RawMatrix().Cols; j++ {
		mean := 0.0
		for i := 0; i < q; i++ {
			mean += x2.At(i, j) / float64(q)
		}
		for i := 0; i < q; i++ {
			cx2.Set(i, j, x2.At(i, j)-mean)
		}
	}
	var pw, wp, l, r mat.Dense
	pw.Mul(rowSpaceProjector(x1), w)
	l.Sub(w, &pw)
	wp.Mul(w, rowSpaceProjector(cx2))
	r.Sub(w, &wp)
	return (mat.Norm(&l, math.Inf(1)) + mat.Norm(&r, math.Inf(1))) / mat.Norm(w, math.Inf(1))
}

// rowSpaceProjector is V_r V_rᵀ for the right singular vectors of x whose
// singular values exceed 1e-9 of the largest.
func rowSpaceProjector(x *mat.Dense) *mat.Dense {
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDFull) {
		panic("svd")
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	_, c := x.Dims()
	p := mat.NewDense(c, c, nil)
	for k, sv := range s {
		if sv <= 1e-9*s[0] {
			continue
		}
		for i := 0; i < c; i++ {
			for j := 0; j < c; j++ {
				p.Set(i, j, p.At(i, j)+v.At(i, k)*v.At(j, k))
			}
		}
	}
	return p
}

// TestKronRankLinearRoutes: the linear form's weights equal the oracle's
// (bruteLinearRank) on each route the fit can take — the tridiagonal
// route with S = ZᵀZ (e < q − 1) and with S = ZZᵀ, W = V Z (e = q − 1 and
// e > q: the tutorials' shape), with X₁ᵀX₁ singular (d > m), and the
// eigen route that a numerically singular S sends the fit to (a repeated
// feature of the column objects for ZᵀZ; a repeated column object for
// ZZᵀ) — for λ from 1e-6 to 1e4. The tolerance is the bound on both
// solves' rounding, 100·(d·e)·ε·κ with κ = (‖X₁‖²‖X₂‖² + λ)/λ the normal
// equations' condition number; at λ = 1 and 100 it is below 1e-9, so a
// 1e-7 error fails. W's components outside the row spaces of X₁ and C X₂,
// where the minimizer has none, are at most 1e-12 of ‖W‖ — kept instead of
// left out, they would be rounding divided by λ, ε·κ of W (3e-8 at
// λ = 1e-6 here), under the first bound but not this one.
func TestKronRankLinearRoutes(t *testing.T) {
	type shape struct {
		name       string
		m, d, q, e int
		dupFeature bool // X₂'s feature 1 repeats feature 0
		dupColumn  bool // column object 1 repeats column object 0
		tri, viaZ  bool // the route expected
	}
	shapes := []shape{
		{name: "ZᵀZ", m: 7, d: 4, q: 9, e: 5, tri: true},
		{name: "ZZᵀ e=q−1", m: 6, d: 3, q: 7, e: 6, tri: true, viaZ: true},
		{name: "ZZᵀ e>q", m: 5, d: 4, q: 6, e: 9, tri: true, viaZ: true},
		{name: "d>m", m: 4, d: 6, q: 8, e: 3, tri: true},
		{name: "ZᵀZ singular", m: 6, d: 3, q: 9, e: 5, dupFeature: true},
		{name: "ZZᵀ singular", m: 5, d: 3, q: 6, e: 8, dupColumn: true, viaZ: true},
	}
	for si, sh := range shapes {
		rng := rand.New(rand.NewPCG(uint64(si), 77))
		draw := func(r, c int) *mat.Dense {
			x := mat.NewDense(r, c, nil)
			for i := range x.RawMatrix().Data {
				x.RawMatrix().Data[i] = rng.NormFloat64()
			}
			return x
		}
		x1, x2, y := draw(sh.m, sh.d), draw(sh.q, sh.e), draw(sh.m, sh.q)
		if sh.dupFeature {
			for i := 0; i < sh.q; i++ {
				x2.Set(i, 1, x2.At(i, 0))
			}
		}
		if sh.dupColumn {
			x2.SetRow(1, x2.RawRowView(0))
		}
		l, err := FitKronRankLinear(x1, x2, y)
		if err != nil {
			t.Fatal(err)
		}
		if (l.tri != nil) != sh.tri || (l.z != nil) != sh.viaZ {
			t.Errorf("%s: route tridiagonal %v, W = V Z %v; want %v, %v", sh.name, l.tri != nil, l.z != nil, sh.tri, sh.viaZ)
		}
		norm := mat.Norm(x1, 2) * mat.Norm(x2, 2)
		for _, lambda := range []float64{1e-6, 1e-3, 1, 100, 1e4} {
			t.Run(fmt.Sprintf("%s/λ=%g", sh.name, lambda), func(t *testing.T) {
				w, err := l.Solve(lambda)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteLinearRank(x1, x2, y, lambda)
				kappa := (norm*norm + lambda) / lambda
				tol := 100 * float64(sh.d*sh.e) * 2.220446049250313e-16 * kappa
				if lambda == 1 || lambda == 100 {
					if tol > 1e-9 {
						t.Fatalf("the bound %.3g is too loose to catch a 1e-7 error", tol)
					}
				}
				if d := relDiff(w, want); d > tol {
					t.Errorf("weights differ from the dense solve by %.3g (bound %.3g)", d, tol)
				}
				// the null spaces' components are left out, not rounding
				// divided by λ (which the bound above cannot see: they are
				// ε·κ of W)
				leak := nullLeak(w, x1, x2)
				if leak > 1e-12 {
					t.Errorf("components outside the row spaces: %.3g of ‖W‖", leak)
				}
			})
		}
	}
}
