package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// ScaleGamma returns scikit-learn's gamma="scale" for the m×d data X:
//
//	γ = 1 / (d · Var(X)),  Var(X) = (1/(m·d)) Σ_ij (x_ij − μ)²,  μ = (1/(m·d)) Σ_ij x_ij,
//
// the population variance over all m·d entries of X (numpy's X.var()), and
// γ = 1 when that variance is 0 or X is empty, as scikit-learn's SVC and
// SVR define it. For a gaussian kernel this makes the expected exponent
// γ·E‖x − z‖² about 2 when the features are independent, so the kernel
// matrix is neither ≈ I (γ too large) nor ≈ 11ᵀ (γ too small).
//
// X is *mat.Dense, *matrix.CSR (the zeros not stored count as entries, as in
// scikit-learn's sparse form) or any mat.Matrix. Two passes — the mean, then
// the squared deviations — avoid the cancellation of E[x²] − μ² (scikit-learn's
// sparse formula), so the two agree to rounding when the data are near the
// origin and ScaleGamma is the more accurate when they are not.
// Cost: O(m·d) for dense X, O(nnz + m) for CSR; memory O(1).
func ScaleGamma(x mat.Matrix) float64 {
	m, d := x.Dims()
	n := float64(m) * float64(d)
	if n == 0 {
		return 1
	}
	var v float64
	switch x := x.(type) {
	case *matrix.CSR:
		var sum float64
		for _, a := range x.Values {
			sum += a
		}
		mu := sum / n
		var ss float64
		for _, a := range x.Values {
			ss += (a - mu) * (a - mu)
		}
		ss += (n - float64(len(x.Values))) * mu * mu // the zeros not stored
		v = ss / n
	default:
		var sum float64
		forEach(x, func(a float64) { sum += a })
		mu := sum / n
		var ss float64
		forEach(x, func(a float64) { ss += (a - mu) * (a - mu) })
		v = ss / n
	}
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	return 1 / (float64(d) * v)
}

// forEach calls f on every entry of x, row by row (raw rows of a *mat.Dense).
func forEach(x mat.Matrix, f func(float64)) {
	m, d := x.Dims()
	if dx, ok := x.(*mat.Dense); ok {
		for i := range m {
			for _, a := range dx.RawRowView(i) {
				f(a)
			}
		}
		return
	}
	for i := range m {
		for j := range d {
			f(x.At(i, j))
		}
	}
}

// Degeneracy says how a kernel matrix is numerically degenerate.
type Degeneracy string

const (
	// NotDegenerate: the kernel matrix tells the rows apart.
	NotDegenerate Degeneracy = ""
	// Identity: K ≈ I up to scale — every off-diagonal entry is below
	// DegenerateTol times the largest diagonal entry in magnitude, so each
	// row is similar only to itself (a gaussian γ far too large for the
	// data's scale) and the model predicts about 0 away from the training rows.
	Identity Degeneracy = "identity"
	// Constant: K ≈ c·11ᵀ — every entry is within DegenerateTol·|c| of
	// every other, so the kernel sees no difference between the rows (γ far
	// too small).
	Constant Degeneracy = "constant"
)

// DegenerateTol is the relative tolerance of Degenerate.
const DegenerateTol = 1e-12

// DegenerateRows is the number of rows Degenerate samples.
const DegenerateRows = 200

// Degenerate checks whether the kernel matrix of k on the rows of X is
// numerically the identity or a constant (see Identity, Constant). It
// evaluates K on a sample of s = min(m, DegenerateRows) rows spread evenly
// over X (rows i·⌊m/s⌋) — so the check costs O(s²·d) time and O(s² + s·d)
// memory (O(s² + nnz of the sample) for CSR; a dense X is viewed, not
// copied, though the gaussian kernel centres a copy), whatever m — and reports a
// degeneracy only when the whole sample has it: a warning, not a proof about
// the rows it did not see. One row is never degenerate, and the
// precomputed kernel is not checked (its data are the kernel values).
func Degenerate(k Kernel, x mat.Matrix) (Degeneracy, error) {
	m, d := x.Dims()
	s := min(m, DegenerateRows)
	if s < 2 || d == 0 || k.Spec().Name == "precomputed" { // precomputed: the data are kernel values already seen
		return NotDegenerate, nil
	}
	step := m / s // rows 0, step, 2·step, …: (s−1)·step < m
	rows := make([]int, s)
	for i := range rows {
		rows[i] = i * step
	}
	var sample mat.Matrix
	switch x := x.(type) {
	case *matrix.CSR:
		sample = x.RowSubset(rows)
	case *mat.Dense: // a strided view, no copy
		raw := x.RawMatrix()
		raw.Rows, raw.Stride = s, raw.Stride*step
		raw.Data = raw.Data[:(s-1)*raw.Stride+d]
		var view mat.Dense
		view.SetRawMatrix(raw)
		sample = &view
	default:
		ds := mat.NewDense(s, d, nil)
		for i, r := range rows {
			for j := range d {
				ds.Set(i, j, x.At(r, j))
			}
		}
		sample = ds
	}
	g, err := k.Block(sample, sample)
	if err != nil {
		return NotDegenerate, err
	}
	var diag, lo, hi, off float64
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range s {
		for j, v := range g.RawRowView(i) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if i == j {
				diag = math.Max(diag, math.Abs(v))
			} else {
				off = math.Max(off, math.Abs(v))
			}
		}
	}
	scale := math.Max(math.Abs(lo), math.Abs(hi))
	switch {
	case scale == 0 || math.IsNaN(scale):
		return NotDegenerate, nil
	case hi-lo <= DegenerateTol*scale:
		return Constant, nil
	case off <= DegenerateTol*diag:
		return Identity, nil
	}
	return NotDegenerate, nil
}
