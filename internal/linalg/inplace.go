package linalg

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// EigSymInPlace is EigSym overwriting A with the eigenvectors V: it saves
// EigSym's n×n copy, for callers that own A (a kernel matrix built for the
// factorization). The eigenvalues are returned ascending. O(n³).
func EigSymInPlace(a *mat.Dense) ([]float64, error) {
	n, c := a.Dims()
	if n != c {
		return nil, fmt.Errorf("%w: EigSym of %d×%d matrix", ErrShape, n, c)
	}
	w := make([]float64, n)
	if err := eigSym(a.RawMatrix(), w); err != nil {
		return nil, err
	}
	return w, nil
}
