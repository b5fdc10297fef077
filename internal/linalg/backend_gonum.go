//go:build !openblas

package linalg

import "gonum.org/v1/gonum/blas/blas64"

// Backend names the numerical backend this binary was built with.
const Backend = "gonum"

func eigSym(a blas64.General, w []float64) error { return eigSymGonum(a, w) }

func svdThin(a blas64.General, s []float64, u, vt blas64.General) error {
	return svdThinGonum(a, s, u, vt)
}

func potrfLower(a blas64.General) bool { return potrfLowerGonum(a) }

// SerialBLAS runs f; the pure-Go BLAS has no thread pool to restrict.
func SerialBLAS(f func()) { f() }
