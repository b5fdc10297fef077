// Package linalg is rlskit's numerical layer: every O(n³) step of the learners
// (symmetric eigendecomposition and tridiagonal reduction, thin SVD, Cholesky, gemm,
// syrk, triangular solves) goes through it, so that one build tag switches the whole
// library to a fast backend.
//
// Two builds share this API:
//   - default (pure Go, CGO_ENABLED=0 works): gonum's BLAS and LAPACK;
//   - build tag openblas: OpenBLAS is registered as gonum's BLAS and LAPACK, and the
//     symmetric eigendecomposition uses LAPACKE dsyevd (divide and conquer), the thin
//     SVD dgesdd and Cholesky dpotrf. It links with -lopenblas -llapacke (Debian
//     packages libopenblas-dev and liblapacke-dev); the flags live in this package.
//
// All matrices are *mat.Dense (general, row-major storage). Symmetric operands are
// kept dense on purpose: gonum's Dense×SymDense product takes a slow generic path.
package linalg

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

var (
	// ErrNotPosDef is returned by Cholesky when the matrix is not positive definite.
	ErrNotPosDef = errors.New("linalg: matrix is not positive definite")
	// ErrNoConvergence is returned when an eigen or singular value iteration fails.
	ErrNoConvergence = errors.New("linalg: no convergence")
	// ErrShape is returned for operands whose dimensions do not fit.
	ErrShape = errors.New("linalg: dimension mismatch")
)

// EigSym computes the eigendecomposition A = V diag(w) Vᵀ of the symmetric n×n
// matrix A (both triangles must hold A; only one is read). The eigenvalues w are
// ascending; column j of V is the unit eigenvector of w[j]. A is not modified.
// O(n³): dsyevd in the openblas build, gonum's Dsyev otherwise.
func EigSym(a *mat.Dense) (w []float64, v *mat.Dense, err error) {
	n, c := a.Dims()
	if n != c {
		return nil, nil, fmt.Errorf("%w: EigSym of %d×%d matrix", ErrShape, n, c)
	}
	v = mat.DenseCopyOf(a)
	w = make([]float64, n)
	if err := eigSym(v.RawMatrix(), w); err != nil {
		return nil, nil, err
	}
	return w, v, nil
}

// SVD computes the thin singular value decomposition A = U diag(s) Vᵀ of the m×n
// matrix A, with k = min(m, n): U is m×k, V is n×k, both with orthonormal columns,
// and s (length k) is descending. A is not modified. O(m·n·k): dgesdd in the
// openblas build, gonum's Dgesvd otherwise.
func SVD(a *mat.Dense) (u *mat.Dense, s []float64, v *mat.Dense, err error) {
	if u, s, v, ok, err := svdTall(a); ok {
		return u, s, v, err
	}
	m, n := a.Dims()
	k := min(m, n)
	work := mat.DenseCopyOf(a)
	u = mat.NewDense(m, k, nil)
	vt := mat.NewDense(k, n, nil)
	s = make([]float64, k)
	if err := svdThin(work.RawMatrix(), s, u.RawMatrix(), vt.RawMatrix()); err != nil {
		return nil, nil, nil, err
	}
	return u, s, mat.DenseCopyOf(vt.T()), nil
}

// SVDColMajor is SVD of the m×n matrix A given column by column (A_ij at
// a[j·m + i], len(a) = m·n), which it overwrites: for a caller that builds A
// for the factorization anyway (the linear kernel's data with the bias
// column), in the layout LAPACK works in, so that the tall route needs no
// transposed copy of its own. The results are SVD's: U (m×k) and V (n×k)
// with orthonormal columns, s descending, k = min(m, n). O(m·n·k); peak A
// and U. Without a loaded library (and in the openblas build) A is
// transposed into a row-major matrix and handed to SVD.
func SVDColMajor(a []float64, m, n int) (u *mat.Dense, s []float64, v *mat.Dense, err error) {
	if m <= 0 || n <= 0 || len(a) != m*n {
		return nil, nil, nil, fmt.Errorf("%w: SVDColMajor of %d×%d from %d values", ErrShape, m, n, len(a))
	}
	if u, s, v, ok, err := svdTallColMajor(a, m, n); ok {
		return u, s, v, err
	}
	rm := mat.NewDense(m, n, nil)
	transpose(a, n, m, m, rm.RawMatrix().Data, n)
	return SVD(rm)
}

// transpose writes the rows×cols row-major src (row stride ls) transposed
// into dst (row stride ld): dst[j·ld + i] = src[i·ls + j]. Blocked, so both
// sides stay in cache.
func transpose(src []float64, rows, cols, ls int, dst []float64, ld int) {
	const b = 32
	for i0 := 0; i0 < rows; i0 += b {
		for j0 := 0; j0 < cols; j0 += b {
			for i := i0; i < min(i0+b, rows); i++ {
				row := src[i*ls : i*ls+cols]
				for j := j0; j < min(j0+b, cols); j++ {
					dst[j*ld+i] = row[j]
				}
			}
		}
	}
}

// Cholesky returns the lower-triangular L with A = L Lᵀ (strict upper part zero)
// for the symmetric positive definite A, or ErrNotPosDef. A is not modified. O(n³/3).
func Cholesky(a *mat.Dense) (*mat.Dense, error) {
	n, c := a.Dims()
	if n != c {
		return nil, fmt.Errorf("%w: Cholesky of %d×%d matrix", ErrShape, n, c)
	}
	l := mat.DenseCopyOf(a)
	if n == 0 {
		return l, nil
	}
	if !potrfLower(l.RawMatrix()) {
		return nil, ErrNotPosDef
	}
	raw := l.RawMatrix()
	for i := 0; i < n; i++ {
		clear(raw.Data[i*raw.Stride+i+1 : i*raw.Stride+n])
	}
	return l, nil
}

// InverseSPDInPlace overwrites the symmetric positive definite n×n matrix
// a (both triangles hold it; the lower is read) with a⁻¹, both triangles
// filled, from its Cholesky factor (LAPACK dpotrf, then dpotri: the
// triangular inverse and L⁻ᵀL⁻¹ in place): n³ flops in all, no copy. It
// returns ErrNotPosDef, a partly overwritten, when a is not positive
// definite, and ErrNoConvergence when the factor is singular.
func InverseSPDInPlace(a *mat.Dense) error {
	n, c := a.Dims()
	if n != c {
		return fmt.Errorf("%w: inverse of a %d×%d matrix", ErrShape, n, c)
	}
	if n == 0 {
		return nil
	}
	raw := a.RawMatrix()
	if !potrfLower(raw) {
		return ErrNotPosDef
	}
	if !potriLower(raw) {
		return ErrNoConvergence
	}
	for i := 0; i < n; i++ { // the upper triangle from the lower
		for j := 0; j < i; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
	return nil
}

// SolveLower solves op(L) X = B in place (B becomes X) for lower-triangular L,
// op(L) = Lᵀ when trans. O(n²·t) for B n×t.
func SolveLower(l *mat.Dense, trans bool, b *mat.Dense) { trsm(blas.Left, l, trans, b) }

// SolveLowerRight solves X op(L) = B in place (B becomes X), op(L) = Lᵀ when trans.
func SolveLowerRight(l *mat.Dense, trans bool, b *mat.Dense) { trsm(blas.Right, l, trans, b) }

func trsm(side blas.Side, l *mat.Dense, trans bool, b *mat.Dense) {
	n, _ := l.Dims()
	if n == 0 {
		return
	}
	t := blas.NoTrans
	if trans {
		t = blas.Trans
	}
	r := l.RawMatrix()
	useBackend()
	blas64.Trsm(side, t, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: r.Stride, Data: r.Data}, b.RawMatrix())
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C, op(X) = Xᵀ when the flag is set.
// C must be allocated with the right shape. O(m·n·k) through the backend's BLAS.
func Gemm(transA, transB bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	ar, ac := a.Dims()
	if transA {
		ar, ac = ac, ar
	}
	br, bc := b.Dims()
	if transB {
		br, bc = bc, br
	}
	cr, cc := c.Dims()
	if ac != br || cr != ar || cc != bc {
		panic(fmt.Sprintf("linalg: Gemm shapes %d×%d · %d×%d into %d×%d", ar, ac, br, bc, cr, cc))
	}
	if ar == 0 || bc == 0 {
		return
	}
	if ac == 0 {
		c.Scale(beta, c)
		return
	}
	useBackend()
	blas64.Gemm(ta, tb, alpha, a.RawMatrix(), b.RawMatrix(), beta, c.RawMatrix())
}

// Mul returns op(A)·op(B) as a new matrix.
func Mul(transA, transB bool, a, b *mat.Dense) *mat.Dense {
	r, _ := a.Dims()
	if transA {
		_, r = a.Dims()
	}
	_, c := b.Dims()
	if transB {
		c, _ = b.Dims()
	}
	out := newDense(r, c)
	Gemm(transA, transB, 1, a, b, 0, out)
	return out
}

// Syrk returns the symmetric product A·Aᵀ (trans false) or Aᵀ·A (trans true) with
// both triangles filled, as a dense matrix. O(n²k) at half the flops of Gemm.
func Syrk(trans bool, a *mat.Dense) *mat.Dense {
	n, k := a.Dims()
	t := blas.NoTrans
	if trans {
		n, k = k, n
		t = blas.Trans
	}
	out := newDense(n, n)
	if n == 0 || k == 0 {
		return out
	}
	r := out.RawMatrix()
	useBackend()
	blas64.Syrk(t, 1, a.RawMatrix(), 0, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: r.Stride, Data: r.Data})
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			r.Data[i*r.Stride+j] = r.Data[j*r.Stride+i]
		}
	}
	return out
}

// SolveSPD solves A X = B for symmetric positive definite A by Cholesky, returning X.
// O(n³/3 + n²t).
func SolveSPD(a, b *mat.Dense) (*mat.Dense, error) {
	l, err := Cholesky(a)
	if err != nil {
		return nil, err
	}
	x := mat.DenseCopyOf(b)
	SolveLower(l, false, x)
	SolveLower(l, true, x)
	return x, nil
}

// newDense allocates an r×c matrix, allowing zero dimensions (mat.NewDense panics on them).
func newDense(r, c int) *mat.Dense {
	if r == 0 || c == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(r, c, nil)
}

// ScaleRows returns diag(g)·B as a new matrix. O(size of B).
func ScaleRows(b *mat.Dense, g []float64) *mat.Dense {
	out := mat.DenseCopyOf(b)
	for i, v := range g {
		row := out.RawRowView(i)
		for c := range row {
			row[c] *= v
		}
	}
	return out
}

// ScaleCols returns B·diag(g) as a new matrix. O(size of B).
func ScaleCols(b *mat.Dense, g []float64) *mat.Dense {
	out := mat.DenseCopyOf(b)
	r, _ := out.Dims()
	for i := 0; i < r; i++ {
		row := out.RawRowView(i)
		for k := range row {
			row[k] *= g[k]
		}
	}
	return out
}

// Symmetrize replaces the square A by (A + Aᵀ)/2 in place, removing the
// asymmetry rounding leaves in a product that is symmetric in exact arithmetic.
func Symmetrize(a *mat.Dense) {
	n, _ := a.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			v := (a.At(i, j) + a.At(j, i)) / 2
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
	}
}
