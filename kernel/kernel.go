// Package kernel evaluates kernel functions on blocks of data rows:
// K(A, B)_ij = k(a_i, b_j) for the rows of A and B, dense (*mat.Dense) or sparse
// (*matrix.CSR). Inner products are formed with one gemm (or a sparse product),
// then mapped elementwise in parallel row blocks; memory stays O(|A|·|B|).
//
// Kernels:
//
//	linear      k(x, z) = x·z + bias
//	gaussian    k(x, z) = exp(−gamma‖x − z‖²), ‖x − z‖² = ‖x‖² + ‖z‖² − 2x·z clamped at 0
//	polynomial  k(x, z) = (gamma·x·z + coef0)^degree
//	precomputed the data rows are kernel values: row i of the data holds k(x_i, z_j) for the
//	            training points z_j. It is the linear kernel (bias 0) against the unit
//	            vectors e_j, which Points returns as the training points.
//
// Sparse operands cost memory in proportion to their stored values, never to
// their width (see matrix.Columns). CheckFinite tells beforehand whether data
// can be evaluated without overflowing float64 — max|x|²·d bounded — and names
// the offending row and column when not.
package kernel

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/matrix"
)

var (
	// ErrUnknown is returned for a kernel name rlskit does not know.
	ErrUnknown = errors.New("kernel: unknown kernel")
	// ErrParam is returned for an invalid kernel parameter.
	ErrParam = errors.New("kernel: invalid parameter")
	// ErrShape is returned when the rows of A and B have different widths.
	ErrShape = errors.New("kernel: dimension mismatch")
)

// Spec names a kernel and its parameters; it is what models store.
type Spec struct {
	Name   string  `json:"name"`
	Gamma  float64 `json:"gamma,omitempty"`
	Bias   float64 `json:"bias,omitempty"`
	Coef0  float64 `json:"coef0,omitempty"`
	Degree int     `json:"degree,omitempty"`
}

// String formats the spec as name(param=value, …).
func (s Spec) String() string {
	switch s.Name {
	case "linear":
		return fmt.Sprintf("linear(bias=%g)", s.Bias)
	case "gaussian":
		return fmt.Sprintf("gaussian(gamma=%g)", s.Gamma)
	case "polynomial":
		return fmt.Sprintf("polynomial(gamma=%g, coef0=%g, degree=%d)", s.Gamma, s.Coef0, s.Degree)
	}
	return s.Name
}

// Kernel evaluates k on blocks of rows.
type Kernel interface {
	// Block returns K(A, B), |A|×|B|. A and B are *mat.Dense, *matrix.CSR, or
	// (as B, for the precomputed kernel) a *UnitRows.
	Block(a, b mat.Matrix) (*mat.Dense, error)
	// Points returns the training points a kernel expansion over the rows of X is
	// built on: X itself, or the unit vectors for the precomputed kernel.
	Points(x mat.Matrix) mat.Matrix
	// Spec describes the kernel.
	Spec() Spec
}

// Names lists the kernels New accepts.
func Names() []string { return []string{"linear", "gaussian", "polynomial", "precomputed"} }

// New returns the kernel a spec describes, checking its parameters:
// gamma > 0 (gaussian, polynomial), degree ≥ 1 (polynomial), all finite.
func New(s Spec) (Kernel, error) {
	finite := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s %s = %v", ErrParam, s.Name, name, v)
		}
		return nil
	}
	positive := func(name string, v float64) error {
		if err := finite(name, v); err != nil {
			return err
		}
		if v <= 0 {
			return fmt.Errorf("%w: %s %s = %v, must be > 0", ErrParam, s.Name, name, v)
		}
		return nil
	}
	switch s.Name {
	case "linear":
		if err := finite("bias", s.Bias); err != nil {
			return nil, err
		}
		return Linear{Bias: s.Bias}, nil
	case "gaussian":
		if err := positive("gamma", s.Gamma); err != nil {
			return nil, err
		}
		return Gaussian{Gamma: s.Gamma}, nil
	case "polynomial":
		if err := positive("gamma", s.Gamma); err != nil {
			return nil, err
		}
		if err := finite("coef0", s.Coef0); err != nil {
			return nil, err
		}
		if s.Degree < 1 {
			return nil, fmt.Errorf("%w: polynomial degree = %d, must be ≥ 1", ErrParam, s.Degree)
		}
		return Polynomial{Gamma: s.Gamma, Coef0: s.Coef0, Degree: s.Degree}, nil
	case "precomputed":
		return Precomputed{}, nil
	}
	return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknown, s.Name, Names())
}

// Defaults returns the spec of a kernel with its default parameters:
// gamma 1, bias 1, coef0 0, degree 2.
func Defaults(name string) Spec {
	switch name {
	case "linear":
		return Spec{Name: name, Bias: 1}
	case "gaussian":
		return Spec{Name: name, Gamma: 1}
	case "polynomial":
		return Spec{Name: name, Gamma: 1, Coef0: 0, Degree: 2}
	}
	return Spec{Name: name}
}

// Linear is k(x, z) = x·z + Bias.
type Linear struct{ Bias float64 }

// Block returns A·Bᵀ + bias. O(|A|·|B|·d) by gemm, or by the sparse product.
func (k Linear) Block(a, b mat.Matrix) (*mat.Dense, error) {
	g, err := Inner(a, b)
	if err != nil {
		return nil, err
	}
	if k.Bias != 0 {
		mapRows(g, func(row []float64, _ int) {
			for j := range row {
				row[j] += k.Bias
			}
		})
	}
	return g, nil
}

// Points returns x.
func (Linear) Points(x mat.Matrix) mat.Matrix { return x }

// Spec describes the kernel.
func (k Linear) Spec() Spec { return Spec{Name: "linear", Bias: k.Bias} }

// Gaussian is k(x, z) = exp(−Gamma‖x − z‖²).
type Gaussian struct{ Gamma float64 }

// Block returns exp(−γ max(0, ‖a‖² + ‖b‖² − 2a·b)). O(|A|·|B|·d).
//
// The expansion loses digits to cancellation when the rows are far from the
// origin (raw, unstandardized features), so dense operands are first shifted by
// the mean of B's rows — distances do not change. When A and B are the same
// matrix the diagonal is exactly 1.
func (k Gaussian) Block(a, b mat.Matrix) (*mat.Dense, error) {
	same := a == b
	if ad, ok := a.(*mat.Dense); ok {
		if bd, ok := b.(*mat.Dense); ok {
			a, b = centerPair(ad, bd, same)
		}
	}
	g, err := Inner(a, b)
	if err != nil {
		return nil, err
	}
	na, nb := SqNorms(a), SqNorms(b)
	mapRows(g, func(row []float64, i int) {
		for j, v := range row {
			d := na[i] + nb[j] - 2*v
			if d < 0 || (same && i == j) {
				d = 0
			}
			row[j] = math.Exp(-k.Gamma * d)
		}
	})
	return g, nil
}

// centerPair returns A − 1μᵀ and B − 1μᵀ for μ the mean row of B (one shifted
// copy when A and B are the same matrix). Widths that differ are returned as they
// are, for Inner to report.
func centerPair(a, b *mat.Dense, same bool) (mat.Matrix, mat.Matrix) {
	rb, d := b.Dims()
	if _, da := a.Dims(); da != d || rb == 0 || d == 0 {
		return a, b
	}
	mu := make([]float64, d)
	for i := 0; i < rb; i++ {
		for j, v := range b.RawRowView(i) {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(rb)
	}
	shift := func(x *mat.Dense) *mat.Dense {
		r, _ := x.Dims()
		out := mat.NewDense(r, d, nil)
		parallelRows(r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				src, dst := x.RawRowView(i), out.RawRowView(i)
				for j, v := range src {
					dst[j] = v - mu[j]
				}
			}
		})
		return out
	}
	bs := shift(b)
	if same {
		return bs, bs
	}
	return shift(a), bs
}

// Points returns x.
func (Gaussian) Points(x mat.Matrix) mat.Matrix { return x }

// Spec describes the kernel.
func (k Gaussian) Spec() Spec { return Spec{Name: "gaussian", Gamma: k.Gamma} }

// Polynomial is k(x, z) = (Gamma·x·z + Coef0)^Degree.
type Polynomial struct {
	Gamma, Coef0 float64
	Degree       int
}

// Block returns (γ A·Bᵀ + c₀)^degree elementwise. O(|A|·|B|·d).
func (k Polynomial) Block(a, b mat.Matrix) (*mat.Dense, error) {
	g, err := Inner(a, b)
	if err != nil {
		return nil, err
	}
	mapRows(g, func(row []float64, _ int) {
		for j, v := range row {
			row[j] = ipow(k.Gamma*v+k.Coef0, k.Degree)
		}
	})
	return g, nil
}

// Points returns x.
func (Polynomial) Points(x mat.Matrix) mat.Matrix { return x }

// Spec describes the kernel.
func (k Polynomial) Spec() Spec {
	return Spec{Name: "polynomial", Gamma: k.Gamma, Coef0: k.Coef0, Degree: k.Degree}
}

func ipow(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// Precomputed treats each data row as the kernel values against the training
// points: K(A, e_J) = A[:, J]. Its training points are the unit vectors.
type Precomputed struct{}

// Block returns A·Bᵀ for B the unit rows of training points (columns of A).
func (Precomputed) Block(a, b mat.Matrix) (*mat.Dense, error) {
	if _, ok := b.(*UnitRows); !ok {
		return nil, fmt.Errorf("%w: precomputed kernel evaluated against %T, want the training points from Points", ErrShape, b)
	}
	return Inner(a, b)
}

// Points returns the m unit vectors e_0 … e_{m−1} of ℝ^m for an m-row X.
func (Precomputed) Points(x mat.Matrix) mat.Matrix {
	m, _ := x.Dims()
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	return &UnitRows{Index: idx, N: m}
}

// Spec describes the kernel.
func (Precomputed) Spec() Spec { return Spec{Name: "precomputed"} }

// UnitRows is the matrix whose row r is the unit vector e_{Index[r]} of ℝ^N: the
// training points of a precomputed kernel.
type UnitRows struct {
	Index []int
	N     int
}

// Dims returns (len(Index), N).
func (u *UnitRows) Dims() (int, int) { return len(u.Index), u.N }

// At returns 1 where j == Index[i], else 0.
func (u *UnitRows) At(i, j int) float64 {
	if u.Index[i] == j {
		return 1
	}
	return 0
}

// T returns the implicit transpose.
func (u *UnitRows) T() mat.Matrix { return mat.Transpose{Matrix: u} }

// Rows returns the sub-matrix of the given rows of points: *mat.Dense, *matrix.CSR
// or *UnitRows, of the same kind as the input.
func Rows(points mat.Matrix, rows []int) mat.Matrix {
	switch p := points.(type) {
	case *UnitRows:
		idx := make([]int, len(rows))
		for k, r := range rows {
			idx[k] = p.Index[r]
		}
		return &UnitRows{Index: idx, N: p.N}
	case *matrix.CSR:
		return p.RowSubset(rows)
	default:
		_, d := p.Dims()
		if len(rows) == 0 || d == 0 {
			return &mat.Dense{}
		}
		out := mat.NewDense(len(rows), d, nil)
		pd, ok := p.(*mat.Dense)
		for k, r := range rows {
			if ok {
				copy(out.RawRowView(k), pd.RawRowView(r))
				continue
			}
			for j := 0; j < d; j++ {
				out.Set(k, j, p.At(r, j))
			}
		}
		return out
	}
}

// Inner returns the inner products A·Bᵀ for dense, CSR or unit rows.
// Dense×dense is one gemm through the linear-algebra backend; sparse operands use
// the sparse product, in parallel row blocks.
func Inner(a, b mat.Matrix) (*mat.Dense, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("%w: no data", ErrShape)
	}
	ra, da := a.Dims()
	rb, db := b.Dims()
	if da != db {
		return nil, fmt.Errorf("%w: rows of width %d against rows of width %d", ErrShape, da, db)
	}
	if ra == 0 || rb == 0 {
		return &mat.Dense{}, nil
	}
	out := mat.NewDense(ra, rb, nil)
	switch bb := b.(type) {
	case *UnitRows:
		switch aa := a.(type) {
		case *matrix.CSR:
			mapRows(out, func(row []float64, i int) {
				for j, c := range bb.Index {
					row[j] = aa.At(i, c)
				}
			})
		default:
			ad := dense(a)
			mapRows(out, func(row []float64, i int) {
				arow := ad.RawRowView(i)
				for j, c := range bb.Index {
					row[j] = arow[c]
				}
			})
		}
		return out, nil
	case *matrix.CSR:
		// B by its non-empty columns: O(nnz(B)) memory whatever the width.
		bc := bb.Columns()
		switch aa := a.(type) {
		case *matrix.CSR:
			parallelRows(ra, func(lo, hi int) {
				matrix.MulABt(out.Slice(lo, hi, 0, rb).(*mat.Dense), aa.RowSubset(span(lo, hi)), bc)
			})
		default:
			// out[i][j] = Σ_f a_if b_jf over the columns f where B has entries.
			ad := dense(a)
			parallelRows(ra, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					arow := ad.RawRowView(i)
					row := out.RawRowView(i)
					for k, f := range bc.Cols {
						v := arow[f]
						if v == 0 {
							continue
						}
						p, q := bc.Indptr[k], bc.Indptr[k+1]
						bv := bc.Values[p:q]
						for n, j := range bc.Rows[p:q] {
							row[j] += v * bv[n]
						}
					}
				}
			})
		}
		return out, nil
	}
	bd := dense(b)
	switch aa := a.(type) {
	case *matrix.CSR:
		parallelRows(ra, func(lo, hi int) {
			matrix.MulDenseBt(out.Slice(lo, hi, 0, rb).(*mat.Dense), aa.RowSubset(span(lo, hi)), bd)
		})
	default:
		linalg.Gemm(false, true, 1, dense(a), bd, 0, out)
	}
	return out, nil
}

// SqNorms returns ‖row‖² for every row of A.
func SqNorms(a mat.Matrix) []float64 {
	switch aa := a.(type) {
	case *matrix.CSR:
		return aa.RowSqNorms()
	case *UnitRows:
		out := make([]float64, len(aa.Index))
		for i := range out {
			out[i] = 1
		}
		return out
	}
	ad := dense(a)
	r, _ := ad.Dims()
	out := make([]float64, r)
	for i := range out {
		row := ad.RawRowView(i)
		s := 0.0
		for _, v := range row {
			s += v * v
		}
		out[i] = s
	}
	return out
}

func dense(a mat.Matrix) *mat.Dense {
	if d, ok := a.(*mat.Dense); ok {
		return d
	}
	return mat.DenseCopyOf(a)
}

func span(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}

// parallelRows splits [0, n) into contiguous blocks, one per CPU, and runs f on each.
func parallelRows(n int, f func(lo, hi int)) {
	p := min(runtime.GOMAXPROCS(0), n)
	if p <= 1 || n < 64 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		lo, hi := w*n/p, (w+1)*n/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// mapRows applies f to every row of g in parallel row blocks.
func mapRows(g *mat.Dense, f func(row []float64, i int)) {
	r, _ := g.Dims()
	parallelRows(r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(g.RawRowView(i), i)
		}
	})
}
