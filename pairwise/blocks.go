package pairwise

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
)

// transpose returns Aᵀ as a new dense matrix. O(size of A).
func transpose(a *mat.Dense) *mat.Dense {
	r, c := a.Dims()
	out := mat.NewDense(c, r, nil)
	for i := 0; i < r; i++ {
		for j, v := range a.RawRowView(i) {
			out.Set(j, i, v)
		}
	}
	return out
}

// rowsOf returns the rows idx of A.
func rowsOf(a *mat.Dense, idx []int) *mat.Dense {
	return kernel.Rows(a, idx).(*mat.Dense)
}

// colsOf returns the columns idx of A.
func colsOf(a *mat.Dense, idx []int) *mat.Dense {
	r, _ := a.Dims()
	out := mat.NewDense(r, len(idx), nil)
	for i := 0; i < r; i++ {
		src, dst := a.RawRowView(i), out.RawRowView(i)
		for j, c := range idx {
			dst[j] = src[c]
		}
	}
	return out
}

// mulElem returns A∘B.
func mulElem(a, b *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.MulElem(a, b)
	return &out
}

// scaleRowsBy returns diag(s)·A.
func scaleRowsBy(a *mat.Dense, s []float64) *mat.Dense { return linalg.ScaleRows(a, s) }

// khatriRao returns the |F|²×m matrix whose row i·|F|+j is U_F[i]∘U_F[j]:
// then (KR·w)[i·|F|+j, l] = (U_F diag(w_·l) U_Fᵀ)_ij.
func khatriRao(uf *mat.Dense) *mat.Dense {
	f, m := uf.Dims()
	out := mat.NewDense(f*f, m, nil)
	for i := 0; i < f; i++ {
		ui := uf.RawRowView(i)
		for j := 0; j < f; j++ {
			uj, dst := uf.RawRowView(j), out.RawRowView(i*f+j)
			for k := range dst {
				dst[k] = ui[k] * uj[k]
			}
		}
	}
	return out
}

// blockChunk bounds the |F|²×chunk blocks blockSolve forms at once (doubles).
// It is a variable only so that a test can lower it and run the chunked loop
// over several chunks at a size a test can afford.
var blockChunk = 1 << 22

// blockSolve solves, for every column l of W (m×q'), the |F|×|F| system
//
//	M_l x_l = b_l,   M_l = U_F diag(W_·l) U_Fᵀ
//
// for the rows U_F (|F|×m) of an orthogonal matrix and positive W, returning
// X = [x_l] (|F|×q'); with E non-nil it returns E_l x_l instead, E_l =
// U_F diag(E_·l) U_Fᵀ. This is the hold-out system of a Kronecker model for a
// set of rows held out at every column, which the column eigenvectors make
// block diagonal (one |F|×|F| block per column eigenvalue). Cost
// O(|F|²·m·q' + |F|³·q'); a single row costs O(m·q').
func blockSolve(uf, w, b, e *mat.Dense) (*mat.Dense, error) {
	f, m := uf.Dims()
	_, q := w.Dims()
	out := mat.NewDense(f, q, nil)
	if f == 1 {
		u := uf.RawRowView(0)
		dst, rhs := out.RawRowView(0), b.RawRowView(0)
		for l := 0; l < q; l++ {
			s, t := 0.0, 0.0
			for k := 0; k < m; k++ {
				uk := u[k] * u[k]
				s += uk * w.At(k, l)
				if e != nil {
					t += uk * e.At(k, l)
				}
			}
			x := rhs[l] / s
			if e != nil {
				x *= t
			}
			dst[l] = x
		}
		return out, nil
	}
	kr := khatriRao(uf)
	chunk := max(1, blockChunk/(f*f))
	ml := mat.NewDense(f, f, nil)
	el := mat.NewDense(f, f, nil)
	rhs := mat.NewDense(f, 1, nil)
	for lo := 0; lo < q; lo += chunk {
		hi := min(q, lo+chunk)
		mw := linalg.Mul(false, false, kr, w.Slice(0, m, lo, hi).(*mat.Dense))
		var me *mat.Dense
		if e != nil {
			me = linalg.Mul(false, false, kr, e.Slice(0, m, lo, hi).(*mat.Dense))
		}
		for l := lo; l < hi; l++ {
			for i := 0; i < f; i++ {
				for j := 0; j < f; j++ {
					ml.Set(i, j, mw.At(i*f+j, l-lo))
					if me != nil {
						el.Set(i, j, me.At(i*f+j, l-lo))
					}
				}
				rhs.Set(i, 0, b.At(i, l))
			}
			x, err := solveSPD(ml, rhs)
			if err != nil {
				return nil, err
			}
			if me != nil {
				x = linalg.Mul(false, false, el, x)
			}
			for i := 0; i < f; i++ {
				out.Set(i, l, x.At(i, 0))
			}
		}
	}
	return out, nil
}

// solveSPD solves A X = B for symmetric positive definite A by Cholesky,
// falling back to LU when rounding makes Cholesky fail.
func solveSPD(a, b *mat.Dense) (*mat.Dense, error) {
	if x, err := linalg.SolveSPD(a, b); err == nil {
		return x, nil
	}
	var x mat.Dense
	if err := x.Solve(a, b); err != nil {
		return nil, fmt.Errorf("pairwise: singular hold-out system: %w", err)
	}
	return &x, nil
}

// allSingletons reports whether every fold holds one index.
func allSingletons(folds [][]int) bool {
	for _, f := range folds {
		if len(f) != 1 {
			return false
		}
	}
	return true
}
