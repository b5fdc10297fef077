package matrix

import (
	"errors"

	"gonum.org/v1/gonum/mat"
)

// ErrEmpty is returned by Check for a nil or empty matrix.
var ErrEmpty = errors.New("matrix: no data (nil or empty)")

// Check returns an error wrapping ErrEmpty unless x holds at least one row:
// it catches a nil interface, a nil or empty *mat.Dense, a nil *CSR and a
// matrix of zero rows, before any code calls Dims or At on them (which
// panics). Entry points of the library call it on their data. O(1).
func Check(x mat.Matrix) error {
	switch v := x.(type) {
	case nil:
		return ErrEmpty
	case *mat.Dense:
		if v == nil || v.IsEmpty() {
			return ErrEmpty
		}
	case *CSR:
		if v == nil {
			return ErrEmpty
		}
	}
	if r, _ := x.Dims(); r == 0 {
		return ErrEmpty
	}
	return nil
}
