//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// Our matrices are row-major; the library is column-major. A row-major m×n
// array with stride ld is the column-major n×m array of the transpose with
// leading dimension ld, so every call below swaps operands, sides and
// triangles accordingly.

func i32(v int) *int32 { x := int32(v); return &x }
func f64(v float64) *float64 {
	x := v
	return &x
}
func ch(c byte) *byte { x := c; return &x }

// eigSymDyn overwrites a (row-major n×n, symmetric) with its eigenvectors as
// columns and w with the ascending eigenvalues: dsyevd on the same array (the
// column-major view of a symmetric matrix is itself), whose column-major
// eigenvectors are then the rows, transposed in place. Workspace queried.
func eigSymDyn(l *dynLib, a blas64.General, w []float64) error {
	n := a.Rows
	if n == 0 {
		return nil
	}
	var info int32
	wq, iq := []float64{0}, []int32{0}
	l.dsyevd(ch('V'), ch('U'), i32(n), &a.Data[0], i32(a.Stride), &w[0], &wq[0], i32(-1), &iq[0], i32(-1), &info, 1, 1)
	if info != 0 {
		return ErrNoConvergence
	}
	work := make([]float64, max(int(wq[0]), 1))
	iwork := make([]int32, max(int(iq[0]), 1))
	l.dsyevd(ch('V'), ch('U'), i32(n), &a.Data[0], i32(a.Stride), &w[0], &work[0], i32(len(work)), &iwork[0], i32(len(iwork)), &info, 1, 1)
	if info != 0 {
		return ErrNoConvergence
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a.Data[i*a.Stride+j], a.Data[j*a.Stride+i] = a.Data[j*a.Stride+i], a.Data[i*a.Stride+j]
		}
	}
	return nil
}

// svdThinDyn computes the thin SVD a = u diag(s) vt of the row-major m×n a
// (destroyed) by dgesdd on its column-major view aᵀ = v diag(s) uᵀ: the
// routine's U (n×k) lands in vt's array and its Vᵀ (k×m) in u's.
func svdThinDyn(l *dynLib, a blas64.General, s []float64, u, vt blas64.General) error {
	m, n := a.Rows, a.Cols
	if m == 0 || n == 0 {
		return nil
	}
	k := min(m, n)
	iwork := make([]int32, 8*k)
	var info int32
	wq := []float64{0}
	l.dgesdd(ch('S'), i32(n), i32(m), &a.Data[0], i32(a.Stride), &s[0], &vt.Data[0], i32(vt.Stride), &u.Data[0], i32(u.Stride), &wq[0], i32(-1), &iwork[0], &info, 1)
	if info != 0 {
		return ErrNoConvergence
	}
	work := make([]float64, max(int(wq[0]), 1))
	l.dgesdd(ch('S'), i32(n), i32(m), &a.Data[0], i32(a.Stride), &s[0], &vt.Data[0], i32(vt.Stride), &u.Data[0], i32(u.Stride), &work[0], i32(len(work)), &iwork[0], &info, 1)
	return boolErr(info == 0)
}

// svdTallDyn is the thin SVD of a tall A (m > n), A not modified. The
// row-major A reads as the wide column-major Aᵀ, for which dgesdd factors LQ
// first — about twice as slow as the QR it uses for a tall matrix, and far
// slower for very tall ones (m = 10⁵, n = 137: 7.0 s against 0.9 s with
// OpenBLAS). So A is handed over transposed (column-major m×n, one blocked
// O(m·n) copy, which replaces the work copy the wide route makes) to
// svdColMajorDyn. Peak: A, its transpose and U, as the wide route.
func svdTallDyn(l *dynLib, a *mat.Dense) (u *mat.Dense, s []float64, v *mat.Dense, err error) {
	m, n := a.Dims()
	raw := a.RawMatrix()
	ac := make([]float64, m*n) // column-major m×n
	transpose(raw.Data, m, n, raw.Stride, ac, m)
	return svdColMajorDyn(l, ac, m, n)
}

// svdColMajorDyn is the thin SVD of the tall (m > n) column-major ac, which
// it destroys: dgesdd overwrites it with U (jobz 'O'), U is transposed into
// a new row-major matrix, and the column-major Vᵀ read row-major is V.
func svdColMajorDyn(l *dynLib, ac []float64, m, n int) (u *mat.Dense, s []float64, v *mat.Dense, err error) {
	s = make([]float64, n)
	vtc := make([]float64, n*n) // column-major n×n
	iwork := make([]int32, 8*n)
	var info int32
	wq, none := []float64{0}, []float64{0}
	l.dgesdd(ch('O'), i32(m), i32(n), &ac[0], i32(m), &s[0], &none[0], i32(1), &vtc[0], i32(n), &wq[0], i32(-1), &iwork[0], &info, 1)
	if info != 0 {
		return nil, nil, nil, ErrNoConvergence
	}
	work := make([]float64, max(int(wq[0]), 1))
	l.dgesdd(ch('O'), i32(m), i32(n), &ac[0], i32(m), &s[0], &none[0], i32(1), &vtc[0], i32(n), &work[0], i32(len(work)), &iwork[0], &info, 1)
	if info != 0 {
		return nil, nil, nil, ErrNoConvergence
	}
	u = mat.NewDense(m, n, nil)
	transpose(ac, n, m, m, u.RawMatrix().Data, n) // n×m row-major (Uᵀ) → U
	return u, s, mat.NewDense(n, n, vtc), nil
}

// potrfLowerDyn factors a = L Lᵀ into the row-major lower triangle: the
// column-major upper factor U (A = UᵀU) of the same array is L.
func potrfLowerDyn(l *dynLib, a blas64.General) bool {
	if a.Rows == 0 {
		return true
	}
	var info int32
	l.dpotrf(ch('U'), i32(a.Rows), &a.Data[0], i32(a.Stride), &info, 1)
	return info == 0
}

// potriLowerDyn overwrites the row-major lower triangle of a, holding the
// factor L of a = L Lᵀ (potrfLowerDyn's), with the lower triangle of a⁻¹:
// dpotri on the column-major upper triangle of the same array.
func potriLowerDyn(l *dynLib, a blas64.General) bool {
	if a.Rows == 0 {
		return true
	}
	var info int32
	l.dpotri(ch('U'), i32(a.Rows), &a.Data[0], i32(a.Stride), &info, 1)
	return info == 0
}

func boolErr(ok bool) error {
	if ok {
		return nil
	}
	return ErrNoConvergence
}

// dynBLAS is gonum's BLAS with the Level-3 routines the learners use (gemm,
// syrk, trsm, symm) computed by the loaded library; small products and
// everything else stay in gonum, where a call's overhead would dominate.
type dynBLAS struct {
	gonum.Implementation
	lib *dynLib
}

// dynMinWork is the flop count (m·n·k) below which gonum's own Level 3 is used.
const dynMinWork = 32 * 32 * 32

func tr(t blas.Transpose) *byte {
	if t == blas.NoTrans {
		return ch('N')
	}
	return ch('T')
}

func flipUplo(ul blas.Uplo) *byte {
	if ul == blas.Upper {
		return ch('L')
	}
	return ch('U')
}

func flipSide(s blas.Side) *byte {
	if s == blas.Left {
		return ch('R')
	}
	return ch('L')
}

// Dgemm computes C = α op(A) op(B) + βC: column-major Cᵀ = α op(B)ᵀ op(A)ᵀ + βCᵀ.
func (d dynBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m*n*k < dynMinWork || m == 0 || n == 0 || k == 0 {
		d.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	d.lib.dgemm(tr(tB), tr(tA), i32(n), i32(m), i32(k), f64(alpha), &b[0], i32(ldb), &a[0], i32(lda), f64(beta), &c[0], i32(ldc), 1, 1)
}

// Dsyrk computes C = α op(A) op(A)ᵀ + βC on one triangle: column-major, the
// other triangle and the other transposition.
func (d dynBLAS) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if n*n*k < dynMinWork || n == 0 || k == 0 {
		d.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	flip := blas.Trans
	if t != blas.NoTrans {
		flip = blas.NoTrans
	}
	d.lib.dsyrk(flipUplo(ul), tr(flip), i32(n), i32(k), f64(alpha), &a[0], i32(lda), f64(beta), &c[0], i32(ldc), 1, 1)
}

// Dtrsm solves op(A) X = αB (left) or X op(A) = αB (right) for triangular A:
// column-major Xᵀ op(A)ᵀ = αBᵀ, so the side and the triangle flip.
func (d dynBLAS) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	na := m
	if s == blas.Right {
		na = n
	}
	if m*n*na < dynMinWork || m == 0 || n == 0 {
		d.Implementation.Dtrsm(s, ul, tA, diag, m, n, alpha, a, lda, b, ldb)
		return
	}
	dg := ch('N')
	if diag == blas.Unit {
		dg = ch('U')
	}
	d.lib.dtrsm(flipSide(s), flipUplo(ul), tr(tA), dg, i32(n), i32(m), f64(alpha), &a[0], i32(lda), &b[0], i32(ldb), 1, 1, 1, 1)
}

// Dsymm computes C = αAB + βC (left) or αBA + βC (right) for symmetric A:
// column-major Cᵀ = αBᵀA + βCᵀ, so the side and the triangle flip.
func (d dynBLAS) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	na := m
	if s == blas.Right {
		na = n
	}
	if m*n*na < dynMinWork || m == 0 || n == 0 {
		d.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	d.lib.dsymm(flipSide(s), flipUplo(ul), i32(n), i32(m), f64(alpha), &a[0], i32(lda), &b[0], i32(ldb), f64(beta), &c[0], i32(ldc), 1, 1)
}

// tridiagDyn reduces t.refl (row-major n×n symmetric, the column-major view
// of the same matrix) by dsytrd, uplo 'U' in the column-major view; the
// reflectors stay in that layout for mulQDyn. Workspace queried.
func tridiagDyn(l *dynLib, t *Tridiagonal) error {
	a, n := t.refl, t.n
	var info int32
	wq := []float64{0}
	l.dsytrd(ch('U'), i32(n), &a.Data[0], i32(a.Stride), &t.D[0], f64ptr(t.E), f64ptr(t.tau), &wq[0], i32(-1), &info, 1)
	if info != 0 {
		return ErrNoConvergence
	}
	work := make([]float64, max(int(wq[0]), 1))
	l.dsytrd(ch('U'), i32(n), &a.Data[0], i32(a.Stride), &t.D[0], f64ptr(t.E), f64ptr(t.tau), &work[0], i32(len(work)), &info, 1)
	return boolErr(info == 0)
}

// mulQDyn overwrites the row-major k×n m with m·Q (m·Qᵀ when trans): its
// column-major view is mᵀ, and (m·Q)ᵀ = Qᵀ·mᵀ is dormtr from the left
// with 'T' ('N' for m·Qᵀ).
func mulQDyn(l *dynLib, t *Tridiagonal, m blas64.General, trans bool) error {
	op := byte('T')
	if trans {
		op = 'N'
	}
	a, n, k := t.refl, t.n, m.Rows
	var info int32
	wq := []float64{0}
	l.dormtr(ch('L'), ch('U'), ch(op), i32(n), i32(k), &a.Data[0], i32(a.Stride), f64ptr(t.tau), &m.Data[0], i32(m.Stride), &wq[0], i32(-1), &info, 1, 1, 1)
	if info != 0 {
		return ErrNoConvergence
	}
	work := make([]float64, max(int(wq[0]), 1))
	l.dormtr(ch('L'), ch('U'), ch(op), i32(n), i32(k), &a.Data[0], i32(a.Stride), f64ptr(t.tau), &m.Data[0], i32(m.Stride), &work[0], i32(len(work)), &info, 1, 1, 1)
	return boolErr(info == 0)
}

// f64ptr is &s[0], or a pointer to a dummy for an empty slice (n = 1's
// off-diagonal and reflector scalars), which LAPACK does not touch.
func f64ptr(s []float64) *float64 {
	if len(s) == 0 {
		return new(float64)
	}
	return &s[0]
}
