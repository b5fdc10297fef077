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
// Y, whose columns are ranked inside each row (Pahikkala et al. 2013).
//
// C = H Hᵀ for the q×(q − 1) matrix H of the last q − 1 columns of the
// Householder reflection P (P1 = −√q·e₁; H's columns are an orthonormal
// basis of 1^⊥), so the loss is ‖Ỹ − X₁ W Zᵀ‖²_F with Ỹ = Y H and
// Z = Hᵀ X₂ ((q − 1)×e): Kronecker ridge regression on the centered column
// coordinates, in which the direction 1, the null space of C that every
// X₂ᵀCX₂ with e ≥ q has, is gone exactly. Its normal equations are
//
//	X₁ᵀX₁ · W · S + λW = M,   S = ZᵀZ (e×e),   M = X₁ᵀ Ỹ Z          (e < q − 1)
//
// or, for e ≥ q − 1, with W = V Z (W's rows lie in Z's row space),
//
//	X₁ᵀX₁ · V · S + λV = M,   S = Z Zᵀ ((q−1)×(q−1)),   M = X₁ᵀ Ỹ.
//
// With X₁ᵀX₁ = R₁ diag(e₁) R₁ᵀ and S = Q T Qᵀ (T tridiagonal, Q its
// Householder reduction: linalg.Tridiagonal), row i of Ṽ = R₁ᵀ V Q solves
// the tridiagonal system (e₁ᵢ T + λI) ṽᵢ = (R₁ᵀ M Q)ᵢ: O(n) per row and λ
// instead of S's eigenvectors — the reduction is a third of the cost of
// an eigendecomposition with vectors. That route is taken when S is
// numerically nonsingular: no eigenvalue of T below n·ε times a bound on
// the largest (CountBelow, GershgorinMax), so that none of S's components
// would be left out as null. Otherwise S's full eigendecomposition
// S = R₂ diag(e₂) R₂ᵀ is used, V = R₁ [(R₁ᵀ M R₂) ⊘ (e₁e₂ᵀ + λ)] R₂ᵀ with
// the components of eigenvalues at rounding level (nullSpace: the null
// spaces of X₁ and Z, where M's components vanish in exact arithmetic)
// left out, as the singular value decompositions' zero singular values
// would be: kept, they would be rounding divided by λ. Either way the
// components of X₁ᵀX₁'s null space are left out likewise. Fitting costs
// O(m·d² + d³) for the row side, O(q·e·n₂ + n₂³) for S (n₂ = min(e, q − 1))
// and its reduction, and O(m·q·(d + n₂) + d·n₂²) for M and R₁ᵀ M Q; Solve
// costs O(d·n₂·(d + n₂)), plus O(d·q·e) for W = V Z. Memory: d×d and
// n₂×n₂ factors, the d×n₂ projected labels and, for e ≥ q − 1, Z. Prefer
// KronRank (the dual form) when d > m.
type LinearKronRank struct {
	d, e  int
	r1    *mat.Dense // eigenvectors of X₁ᵀX₁ (d×d)
	e1    []float64
	null1 []bool
	z     *mat.Dense // Z, when W = V Z (e ≥ q − 1); nil when W = V
	// the tridiagonal route: S = Q T Qᵀ and R₁ᵀ M Q (d×n₂)
	tri *linalg.Tridiagonal
	mq  *mat.Dense
	// the eigen route: S = R₂ diag(e₂) R₂ᵀ and R₁ᵀ M R₂ (d×n₂)
	r2    *mat.Dense
	e2    []float64
	null2 []bool
	mt    *mat.Dense
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
	r1 := linalg.Syrk(true, x1) // X₁ᵀX₁ (half a gemm's flops), overwritten by R₁
	e1, err := linalg.EigSymInPlace(r1)
	if err != nil {
		return nil, fmt.Errorf("pairwise: eigendecomposition of X₁ᵀX₁ (%d×%d): %w", d, d, err)
	}
	l := &LinearKronRank{d: d, e: e, r1: r1, e1: e1, null1: nullSpace(e1)}
	z, yh := householderCenter(x2, y) // Z = HᵀX₂, Ỹ = Y H
	var s, rhs *mat.Dense
	if e < q-1 {
		s = linalg.Syrk(true, z)                                           // ZᵀZ = X₂ᵀCX₂
		rhs = linalg.Mul(true, false, x1, linalg.Mul(false, false, yh, z)) // X₁ᵀ Ỹ Z
	} else {
		l.z = z
		s = linalg.Syrk(false, z)             // Z Zᵀ
		rhs = linalg.Mul(true, false, x1, yh) // X₁ᵀ Ỹ
	}
	rhs = linalg.Mul(true, false, r1, rhs) // R₁ᵀ M
	n2, _ := s.Dims()
	keep := mat.DenseCopyOf(s)
	tri, err := linalg.TridiagonalInPlace(s)
	if err != nil {
		return nil, fmt.Errorf("pairwise: tridiagonal reduction of the %d×%d column Gram matrix: %w", n2, n2, err)
	}
	if tri.CountBelow(float64(n2)*2.220446049250313e-16*tri.GershgorinMax()) == 0 {
		if err := tri.MulQ(rhs, false); err != nil {
			return nil, err
		}
		l.tri, l.mq = tri, rhs
		return l, nil
	}
	e2, err := linalg.EigSymInPlace(keep) // keep is overwritten by R₂
	if err != nil {
		return nil, fmt.Errorf("pairwise: eigendecomposition of the %d×%d column Gram matrix: %w", n2, n2, err)
	}
	l.r2, l.e2, l.null2, l.mt = keep, e2, nullSpace(e2), linalg.Mul(false, false, rhs, keep)
	return l, nil
}

// householderCenter returns Z = Hᵀ X₂ ((q − 1)×e) and Ỹ = Y H (m×(q − 1)),
// H the last q − 1 columns of the Householder reflection P = I − u uᵀ/β,
// u = 1 + √q e₁, β = √q (√q + 1), which maps 1 to −√q e₁: H Hᵀ = C, and
// row i ≥ 1 of P X₂ is X₂'s row i minus c = uᵀX₂/β (column j ≥ 1 of Y P is
// Y's column j minus Y u/β). O(q·e + m·q).
func householderCenter(x2, y *mat.Dense) (z, yh *mat.Dense) {
	q, e := x2.Dims()
	m, _ := y.Dims()
	rq := math.Sqrt(float64(q))
	beta := rq * (rq + 1)
	c := make([]float64, e) // uᵀX₂/β
	for i := 0; i < q; i++ {
		u := 1.0
		if i == 0 {
			u = 1 + rq
		}
		for j, v := range x2.RawRowView(i) {
			c[j] += u * v
		}
	}
	for j := range c {
		c[j] /= beta
	}
	z = mat.NewDense(q-1, e, nil)
	for i := 1; i < q; i++ {
		src, dst := x2.RawRowView(i), z.RawRowView(i-1)
		for j, v := range src {
			dst[j] = v - c[j]
		}
	}
	yh = mat.NewDense(m, q-1, nil)
	for i := 0; i < m; i++ {
		src, dst := y.RawRowView(i), yh.RawRowView(i)
		r := (1 + rq) * src[0] // Y u, then / β
		for _, v := range src[1:] {
			r += v
		}
		r /= beta
		for j, v := range src[1:] {
			dst[j] = v - r
		}
	}
	return z, yh
}

// Solve returns the d×e weights W at λ (see LinearKronRank).
// O(d·n₂·(d + n₂)), plus O(d·q·e) when W = V Z.
func (l *LinearKronRank) Solve(lambda float64) (*mat.Dense, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("pairwise: %w", err)
	}
	var v *mat.Dense
	if l.tri != nil {
		f := mat.NewDense(l.d, l.tri.Len(), nil)
		work := make([]float64, l.tri.Len())
		for i, a := range l.e1 {
			if l.null1[i] {
				continue
			}
			row := f.RawRowView(i)
			copy(row, l.mq.RawRowView(i))
			if !l.tri.SolveShifted(a, lambda, row, work) {
				return nil, fmt.Errorf("pairwise: %w: the shifted tridiagonal system of row eigenvalue %g at λ = %g is not positive definite", learn.ErrIndefinite, a, lambda)
			}
		}
		v = linalg.Mul(false, false, l.r1, f)
		if err := l.tri.MulQ(v, true); err != nil {
			return nil, err
		}
	} else {
		f, err := rankFilter2(l.e1, l.e2, l.null1, l.null2, lambda)
		if err != nil {
			return nil, err
		}
		f.MulElem(f, l.mt)
		v = linalg.Mul(false, true, linalg.Mul(false, false, l.r1, f), l.r2)
	}
	if l.z != nil {
		return linalg.Mul(false, false, v, l.z), nil // W = V Z
	}
	return v, nil
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
