package pairwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBlockSolveChunks holds blockSolve, with the chunk size lowered so the
// columns span several chunks (some a partial last chunk, some an exact
// multiple), to a direct solve of every column's |F|×|F| system
// M_l x_l = b_l, M_l = U_F diag(W_·l) U_Fᵀ (and E_l x_l), formed entry by
// entry here from its definition.
func TestBlockSolveChunks(t *testing.T) {
	saved := blockChunk
	defer func() { blockChunk = saved }()
	rng := rand.New(rand.NewPCG(21, 6))
	for _, tc := range []struct{ f, m, q, chunkCols int }{
		{2, 5, 7, 3}, // chunks 3,3,1
		{3, 6, 8, 4}, // chunks 4,4: q a multiple of the chunk
		{2, 4, 5, 1}, // one column per chunk
		{3, 7, 4, 9}, // one chunk
	} {
		blockChunk = tc.chunkCols * tc.f * tc.f
		// U_F: the first f rows of a random orthogonal m×m matrix.
		var qr mat.QR
		a := mat.NewDense(tc.m, tc.m, nil)
		for i := range tc.m {
			for j := range tc.m {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		qr.Factorize(a)
		var u mat.Dense
		qr.QTo(&u)
		uf := mat.DenseCopyOf(u.Slice(0, tc.f, 0, tc.m))
		w := mat.NewDense(tc.m, tc.q, nil)
		e := mat.NewDense(tc.m, tc.q, nil)
		b := mat.NewDense(tc.f, tc.q, nil)
		for k := range tc.m {
			for l := range tc.q {
				w.Set(k, l, 0.5+rng.Float64())
				e.Set(k, l, rng.NormFloat64())
			}
		}
		for i := range tc.f {
			for l := range tc.q {
				b.Set(i, l, rng.NormFloat64())
			}
		}
		for _, withE := range []bool{false, true} {
			var ee *mat.Dense
			if withE {
				ee = e
			}
			got, err := blockSolve(uf, w, b, ee)
			if err != nil {
				t.Fatal(err)
			}
			for l := range tc.q {
				ml := mat.NewDense(tc.f, tc.f, nil)
				el := mat.NewDense(tc.f, tc.f, nil)
				for i := range tc.f {
					for j := range tc.f {
						s, r := 0.0, 0.0
						for k := range tc.m {
							s += uf.At(i, k) * w.At(k, l) * uf.At(j, k)
							r += uf.At(i, k) * e.At(k, l) * uf.At(j, k)
						}
						ml.Set(i, j, s)
						el.Set(i, j, r)
					}
				}
				var x mat.VecDense
				if err := x.SolveVec(ml, b.ColView(l)); err != nil {
					t.Fatal(err)
				}
				if withE {
					x.MulVec(el, mat.VecDenseCopyOf(&x))
				}
				for i := range tc.f {
					want, have := x.AtVec(i), got.At(i, l)
					// Each system is well conditioned (W in [0.5, 1.5], U_F
					// orthonormal rows: κ(M_l) ≤ 3), so 1e-12 is loose.
					if math.Abs(want-have) > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("f=%d m=%d q=%d chunk=%d E=%v: column %d entry %d = %g, want %g",
							tc.f, tc.m, tc.q, tc.chunkCols, withE, l, i, have, want)
					}
				}
			}
		}
	}
}
