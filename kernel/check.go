package kernel

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// ErrOverflow is wrapped by the errors of CheckFinite: a data value that is NaN
// or infinite, or so large that evaluating the kernel overflows float64.
var ErrOverflow = errors.New("kernel: data value overflows the kernel")

// ValueError names the data value CheckFinite refused. It wraps ErrOverflow.
type ValueError struct {
	Row, Col int     // 0-based position of the value in the data matrix
	Value    float64 // the value: not finite, or with |Value| > Limit
	Limit    float64 // the largest |x| the kernel takes for this data; 0 for a non-finite value
	N        int     // d of the bound max|x|²·d: the width (dense), the most non-zeros of a row (CSR)
	Kernel   string  // the kernel, as Spec.String
}

// Error names the row and column counting from 1, as a user sees them in a
// file (feature column j+1 is svmlight index j+1, or the (j+1)-th feature
// column of a CSV file).
func (e *ValueError) Error() string {
	if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
		return fmt.Sprintf("data row %d, feature column %d (counting from 1): value %v is not finite: %v",
			e.Row+1, e.Col+1, e.Value, ErrOverflow)
	}
	return fmt.Sprintf("data row %d, feature column %d (counting from 1): overflow: value %g is too large for the %s kernel, "+
		"which squares and sums %d values per row (max|x|²·d must stay below %.3g, so |x| ≤ %.3g); standardize or rescale the data: %v",
		e.Row+1, e.Col+1, e.Value, e.Kernel, e.N, e.Limit*e.Limit*float64(e.N), e.Limit, ErrOverflow)
}

// Unwrap returns ErrOverflow.
func (e *ValueError) Unwrap() error { return ErrOverflow }

// headroom divides math.MaxFloat64 for the bound on |x·z|: the gaussian kernel
// forms ‖x‖² + ‖z‖² − 2x·z after shifting dense rows by a mean row (|x − μ| ≤
// 2·max|x|), which stays below 16·max|x|²·d.
const headroom = 16

// innerBound returns L, the bound on |x·z| (and on ‖x‖²) under which the
// kernel's evaluation cannot overflow, or an error when its parameters alone
// overflow it.
func innerBound(s Spec) (float64, error) {
	if _, err := New(s); err != nil {
		return 0, err
	}
	const top = math.MaxFloat64 / headroom
	switch s.Name {
	case "linear":
		return min(top, (math.MaxFloat64-math.Abs(s.Bias))/2), nil
	case "gaussian":
		return top, nil
	case "polynomial":
		// (γ·|x·z| + |coef0|)^degree ≤ MaxFloat64/2.
		root := math.Pow(math.MaxFloat64/2, 1/float64(s.Degree))
		if math.Abs(s.Coef0) >= root {
			return 0, fmt.Errorf("%w: %s: coef0^degree alone overflows float64", ErrOverflow, s)
		}
		return min(top, (root-math.Abs(s.Coef0))/s.Gamma), nil
	}
	return math.Inf(1), nil // precomputed: the values are used as they are
}

// MaxValue returns the largest |x| that rows of d values (d non-zeros for
// sparse rows) may hold for the kernel s to evaluate without overflowing
// float64: √(L/d) for the bound L on |x·z| that s tolerates (L = MaxFloat64/16
// for the gaussian kernel; less for a large linear bias or a polynomial of
// high degree). It is +Inf for the precomputed kernel and for d = 0.
func MaxValue(s Spec, d int) (float64, error) {
	l, err := innerBound(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 || math.IsInf(l, 1) {
		return math.Inf(1), nil
	}
	v := math.Sqrt(l / float64(d))
	for v*v*float64(d) > l { // rounding: CheckFinite must accept v itself
		v = math.Nextafter(v, 0)
	}
	return v, nil
}

// CheckFinite reports whether the kernel s can be evaluated on the rows of x
// (and between them and the rows of any other matrix that passes the check)
// without overflowing float64. It returns nil, or a *ValueError wrapping
// ErrOverflow that names the first NaN or infinite value, or else the value of
// largest magnitude when max|x|²·d exceeds the bound of MaxValue — d is the
// width of dense data and the largest number of stored entries in a row of a
// *matrix.CSR, so sparse data of any width is judged by its real extent. An
// invalid spec gives its New error.
//
// Learners and the CLI call it on the (standardized) training and prediction
// data so that a value such as 1e155, whose square overflows, is reported with
// its position instead of surfacing later as NaN predictions. It guarantees
// finite kernel values only; badly scaled data can still cost accuracy.
// O(nnz) for CSR, O(m·d) dense.
func CheckFinite(s Spec, x mat.Matrix) error {
	if x == nil {
		return fmt.Errorf("%w: no data", ErrShape)
	}
	l, err := innerBound(s)
	if err != nil {
		return err
	}
	at := &ValueError{Kernel: s.String(), Row: -1}
	big := -1.0
	check := func(i, j int, v float64) bool { // false on a non-finite value
		if math.IsNaN(v) || math.IsInf(v, 0) {
			at.Row, at.Col, at.Value = i, j, v
			return false
		}
		if a := math.Abs(v); a > big {
			big = a
			at.Row, at.Col, at.Value = i, j, v
		}
		return true
	}
	n := 0
	switch xx := x.(type) {
	case *UnitRows:
		return nil
	case *matrix.CSR:
		for i := 0; i < xx.R; i++ {
			idx, val := xx.Row(i)
			n = max(n, len(idx))
			for k, v := range val {
				if !check(i, idx[k], v) {
					return at
				}
			}
		}
	default:
		r, c := x.Dims()
		n = c
		xd, isDense := x.(*mat.Dense)
		for i := 0; i < r; i++ {
			if isDense {
				for j, v := range xd.RawRowView(i) {
					if !check(i, j, v) {
						return at
					}
				}
				continue
			}
			for j := 0; j < c; j++ {
				if !check(i, j, x.At(i, j)) {
					return at
				}
			}
		}
	}
	if at.Row < 0 || n == 0 || math.IsInf(l, 1) {
		return nil
	}
	if big*big*float64(n) > l { // big² overflowing to +Inf fails too
		at.N = n
		at.Limit, _ = MaxValue(s, n)
		return at
	}
	return nil
}
