package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// The pure-Go LAPACK routines are compiled in both builds: they are the default
// backend, and in the openblas build the tests compare the two backends.
var native gonum.Implementation

// eigSymGonum overwrites a (row-major n×n, symmetric) with its eigenvectors (columns) and w with the ascending eigenvalues.
func eigSymGonum(a blas64.General, w []float64) error {
	n := a.Rows
	if n == 0 {
		return nil
	}
	work := []float64{0}
	native.Dsyev(lapack.EVCompute, blas.Upper, n, a.Data, a.Stride, w, work, -1)
	work = make([]float64, int(work[0]))
	if !native.Dsyev(lapack.EVCompute, blas.Upper, n, a.Data, a.Stride, w, work, len(work)) {
		return ErrNoConvergence
	}
	return nil
}

// svdThinGonum computes a = u diag(s) vt (thin); a is destroyed.
func svdThinGonum(a blas64.General, s []float64, u, vt blas64.General) error {
	m, n := a.Rows, a.Cols
	if m == 0 || n == 0 {
		return nil
	}
	work := []float64{0}
	native.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, a.Data, a.Stride, s, u.Data, u.Stride, vt.Data, vt.Stride, work, -1)
	work = make([]float64, int(work[0]))
	if !native.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, a.Data, a.Stride, s, u.Data, u.Stride, vt.Data, vt.Stride, work, len(work)) {
		return ErrNoConvergence
	}
	return nil
}

// potrfLowerGonum factors a = L Lᵀ in place in the lower triangle.
func potrfLowerGonum(a blas64.General) bool {
	return native.Dpotrf(blas.Lower, a.Rows, a.Data, a.Stride)
}

// tridiagGonum reduces t.refl by gonum's Dsytrd and forms Q in its place
// (Dorgtr): gonum has no routine applying the reflectors.
func tridiagGonum(t *Tridiagonal) error {
	a, n := t.refl, t.n
	work := []float64{0}
	native.Dsytrd(blas.Upper, n, a.Data, a.Stride, t.D, t.E, t.tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	native.Dsytrd(blas.Upper, n, a.Data, a.Stride, t.D, t.E, t.tau, work, len(work))
	work = []float64{0}
	native.Dorgtr(blas.Upper, n, a.Data, a.Stride, t.tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	native.Dorgtr(blas.Upper, n, a.Data, a.Stride, t.tau, work, len(work))
	t.formed = true
	return nil
}
