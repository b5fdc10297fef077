package pairwise

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
)

// LinearKronRank is the linear (primal) form of Kronecker RankRLS for
// conditional ranking (KronRank with the linear kernels K = X₁X₁ᵀ,
// G = X₂X₂ᵀ): the d×e weights W of f(u, v) = uᵀ W v minimizing
//
//	‖(Y − X₁ W X₂ᵀ) C‖²_F + λ‖W‖²_F,   C = I_q − 11ᵀ/q,
//
// for m row objects X₁ (m×d), q column objects X₂ (q×e) and the m×q labels
// Y, whose columns are ranked inside each row (Pahikkala et al. 2013). The
// normal equations are (X₁ᵀX₁ ⊗ X₂ᵀCX₂ + λI) vec W = vec(X₁ᵀ Y C X₂); with
// X₁ᵀX₁ = R₁ diag(e₁) R₁ᵀ and X₂ᵀCX₂ = R₂ diag(e₂) R₂ᵀ,
//
//	W = R₁ [(R₁ᵀ X₁ᵀ Y C X₂ R₂) ⊘ (e₁e₂ᵀ + λ)] R₂ᵀ,
//
// the same as through the singular value decompositions of X₁ and C X₂
// (the singular values cancel), without dividing by any of them. The
// components of eigenvalues at rounding level (nullSpace: e ≤ n·ε·max e,
// the null spaces of X₁ and C X₂, where R₁ᵀX₁ᵀ or X₂ᵀC R₂ vanishes in exact
// arithmetic) are left out, as the singular value decompositions' zero
// singular values would be: kept, they would be rounding divided by λ. Fitting
// costs O(m·d² + q·e² + d³ + e³) for the two Gram matrices and their
// eigendecompositions plus O(m·q·e + m·d·e) for X₁ᵀ Y C X₂; Solve costs
// O(d·e·(d + e)) per λ. Memory: the d×d and e×e eigenvectors and d×e
// projected labels. Prefer KronRank (the dual form) when d > m or e > q.
type LinearKronRank struct {
	d, e   int
	r1, r2 *mat.Dense // eigenvectors of X₁ᵀX₁ (d×d) and X₂ᵀCX₂ (e×e)
	e1, e2 []float64
	mt     *mat.Dense // R₁ᵀ X₁ᵀ Y C X₂ R₂, d×e
}

// checkFinite refuses a matrix with a NaN or an infinity, naming its entry.
func checkFinite(what string, a *mat.Dense) error {
	r, c := a.Dims()
	for i := 0; i < r; i++ {
		for j, v := range a.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("pairwise: %w: %s[%d, %d] is %v", learnErrShape, what, i, j, v)
			}
		}
		if c == 0 {
			break
		}
	}
	return nil
}

// FitKronRankLinear factors the linear conditional-ranking problem of the
// row objects x1 (m×d), the column objects x2 (q×e) and the complete m×q
// label matrix y (y[i][j] the label of the pair (row i, column j)). See
// LinearKronRank for the cost.
func FitKronRankLinear(x1, x2, y *mat.Dense) (*LinearKronRank, error) {
	if x1 == nil || x2 == nil || y == nil || x1.IsEmpty() || x2.IsEmpty() || y.IsEmpty() {
		return nil, fmt.Errorf("pairwise: %w: linear conditional ranking needs row objects, column objects and labels", learnErrShape)
	}
	m, d := x1.Dims()
	q, e := x2.Dims()
	if ym, yq := y.Dims(); ym != m || yq != q {
		return nil, fmt.Errorf("pairwise: %w: labels are %d×%d, the objects %d rows × %d columns", learnErrShape, ym, yq, m, q)
	}
	if q < 2 {
		return nil, fmt.Errorf("pairwise: %w: conditional ranking ranks the columns inside each row: %d column object", learnErrShape, q)
	}
	for _, c := range []struct {
		what string
		a    *mat.Dense
	}{{"row objects", x1}, {"column objects", x2}, {"labels", y}} {
		if err := checkFinite(c.what, c.a); err != nil {
			return nil, err
		}
	}
	x2c := centerColumns(x2)    // C X₂
	r1 := linalg.Syrk(true, x1) // X₁ᵀX₁ (half a gemm's flops), overwritten by R₁
	e1, err := linalg.EigSymInPlace(r1)
	if err != nil {
		return nil, fmt.Errorf("pairwise: eigendecomposition of X₁ᵀX₁ (%d×%d): %w", d, d, err)
	}
	r2 := linalg.Syrk(true, x2c) // X₂ᵀCX₂, overwritten by R₂
	e2, err := linalg.EigSymInPlace(r2)
	if err != nil {
		return nil, fmt.Errorf("pairwise: eigendecomposition of X₂ᵀCX₂ (%d×%d): %w", e, e, err)
	}
	mx := linalg.Mul(true, false, x1, linalg.Mul(false, false, y, x2c)) // X₁ᵀ Y C X₂
	mt := linalg.Mul(false, false, linalg.Mul(true, false, r1, mx), r2)
	return &LinearKronRank{d: d, e: e, r1: r1, r2: r2, e1: e1, e2: e2, mt: mt}, nil
}

// centerColumns returns C X: each column minus its mean. O(q·e).
func centerColumns(x *mat.Dense) *mat.Dense {
	q, e := x.Dims()
	mean := make([]float64, e)
	for i := 0; i < q; i++ {
		for j, v := range x.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(q)
	}
	out := mat.NewDense(q, e, nil)
	for i := 0; i < q; i++ {
		src, dst := x.RawRowView(i), out.RawRowView(i)
		for j, v := range src {
			dst[j] = v - mean[j]
		}
	}
	return out
}

// Solve returns the d×e weights W at λ (see LinearKronRank). O(d·e·(d + e)).
func (l *LinearKronRank) Solve(lambda float64) (*mat.Dense, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	f, err := rankFilter2(l.e1, l.e2, nullSpace(l.e1), nullSpace(l.e2), lambda)
	if err != nil {
		return nil, err
	}
	f.MulElem(f, l.mt)
	return linalg.Mul(false, true, linalg.Mul(false, false, l.r1, f), l.r2), nil
}

// PredictLinear returns the scores X₁' W X₂'ᵀ of every pair of the row
// objects x1 (m'×d) and column objects x2 (q'×e) under the weights w (d×e).
// O(m'·d·e + m'·e·q').
func PredictLinear(w, x1, x2 *mat.Dense) (*mat.Dense, error) {
	d, e := w.Dims()
	if _, c := x1.Dims(); c != d {
		return nil, fmt.Errorf("pairwise: %w: row objects have %d features, the weights %d", learnErrShape, c, d)
	}
	if _, c := x2.Dims(); c != e {
		return nil, fmt.Errorf("pairwise: %w: column objects have %d features, the weights %d", learnErrShape, c, e)
	}
	return linalg.Mul(false, true, linalg.Mul(false, false, x1, w), x2), nil
}
