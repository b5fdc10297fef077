// Package matrix holds the data-matrix types rlskit's learners accept besides
// gonum's *mat.Dense: a compressed sparse row matrix (CSR) for high-dimensional
// sparse data such as svmlight files.
//
// Learners take their data as a mat.Matrix; both *mat.Dense and *CSR satisfy it,
// and the kernel and factor packages pick a fast path for each.
package matrix

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrShape is returned (wrapped) when matrix dimensions do not agree.
var ErrShape = errors.New("matrix: dimension mismatch")

// CSR is an r×c sparse matrix in compressed sparse row form: the non-zeros of
// row i are Values[Indptr[i]:Indptr[i+1]] at columns Indices[Indptr[i]:Indptr[i+1]],
// column indices strictly increasing within a row. Explicit zeros are allowed.
type CSR struct {
	R, C    int
	Indptr  []int
	Indices []int
	Values  []float64
}

var _ mat.Matrix = (*CSR)(nil)

// NewCSR checks the CSR invariants and returns the matrix; the slices are used, not copied.
func NewCSR(r, c int, indptr, indices []int, values []float64) (*CSR, error) {
	if r < 0 || c < 0 {
		return nil, fmt.Errorf("%w: negative size %d×%d", ErrShape, r, c)
	}
	if len(indptr) != r+1 || indptr[0] != 0 {
		return nil, fmt.Errorf("%w: indptr has length %d, want %d starting at 0", ErrShape, len(indptr), r+1)
	}
	if len(indices) != len(values) || indptr[r] != len(values) {
		return nil, fmt.Errorf("%w: %d indices, %d values, indptr ends at %d", ErrShape, len(indices), len(values), indptr[r])
	}
	for i := 0; i < r; i++ {
		if indptr[i+1] < indptr[i] || indptr[i+1] > len(values) {
			return nil, fmt.Errorf("%w: indptr[%d] = %d outside [%d,%d]", ErrShape, i+1, indptr[i+1], indptr[i], len(values))
		}
		for k := indptr[i]; k < indptr[i+1]; k++ {
			j := indices[k]
			if j < 0 || j >= c {
				return nil, fmt.Errorf("%w: row %d has column %d outside [0,%d)", ErrShape, i, j, c)
			}
			if k > indptr[i] && j <= indices[k-1] {
				return nil, fmt.Errorf("%w: row %d columns not strictly increasing at %d", ErrShape, i, j)
			}
		}
	}
	return &CSR{R: r, C: c, Indptr: indptr, Indices: indices, Values: values}, nil
}

// Dims returns the number of rows and columns.
func (m *CSR) Dims() (int, int) { return m.R, m.C }

// At returns element (i, j) by binary search in row i: O(log nnz(row)).
func (m *CSR) At(i, j int) float64 {
	if i < 0 || i >= m.R || j < 0 || j >= m.C {
		panic(mat.ErrIndexOutOfRange)
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := m.Indices[mid]; {
		case c == j:
			return m.Values[mid]
		case c < j:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0
}

// T returns the implicit transpose.
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Values) }

// Row returns the column indices and values of row i (shared, not copied).
func (m *CSR) Row(i int) ([]int, []float64) {
	a, b := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[a:b], m.Values[a:b]
}

// RowSubset returns a new CSR with the given rows, in the given order. O(nnz of those rows).
func (m *CSR) RowSubset(rows []int) *CSR {
	indptr := make([]int, len(rows)+1)
	n := 0
	for k, i := range rows {
		n += m.Indptr[i+1] - m.Indptr[i]
		indptr[k+1] = n
	}
	indices := make([]int, 0, n)
	values := make([]float64, 0, n)
	for _, i := range rows {
		idx, val := m.Row(i)
		indices = append(indices, idx...)
		values = append(values, val...)
	}
	return &CSR{R: len(rows), C: m.C, Indptr: indptr, Indices: indices, Values: values}
}

// Transpose returns Mᵀ as a new CSR (i.e. M in compressed sparse column form).
// O(nnz + r + c) time and memory: its row pointer has c+1 entries, so for data
// of large width (svmlight indices in the billions) use Columns, whose size
// depends on the stored entries only.
func (m *CSR) Transpose() *CSR {
	indptr := make([]int, m.C+1)
	for _, j := range m.Indices {
		indptr[j+1]++
	}
	for j := 0; j < m.C; j++ {
		indptr[j+1] += indptr[j]
	}
	next := append([]int(nil), indptr[:m.C]...)
	indices := make([]int, len(m.Indices))
	values := make([]float64, len(m.Values))
	for i := 0; i < m.R; i++ {
		for k := m.Indptr[i]; k < m.Indptr[i+1]; k++ {
			j := m.Indices[k]
			p := next[j]
			indices[p] = i
			values[p] = m.Values[k]
			next[j]++
		}
	}
	return &CSR{R: m.C, C: m.R, Indptr: indptr, Indices: indices, Values: values}
}

// Columns holds an r×c sparse matrix by columns, listing only the columns that
// hold a stored entry: column Cols[k] has its entries Values[Indptr[k]:Indptr[k+1]]
// in rows Rows[Indptr[k]:Indptr[k+1]] (increasing). Every other column is zero.
// Its size is O(nnz) whatever the width c, so it is the transpose to use for
// sparse data whose feature indices run into the billions.
type Columns struct {
	R, C   int
	Cols   []int // non-empty columns, strictly increasing
	Indptr []int // len(Cols)+1 offsets into Rows and Values
	Rows   []int
	Values []float64
}

// Columns returns M by its non-empty columns. O(nnz + r) time and memory when
// c ≤ 2·nnz + r (a counting pass over the columns), else O(nnz log nnz) time
// and O(nnz + r) memory: never O(c).
func (m *CSR) Columns() *Columns {
	nnz := len(m.Indices)
	out := &Columns{R: m.R, C: m.C, Rows: make([]int, nnz), Values: make([]float64, nnz)}
	if nnz == 0 {
		out.Indptr = []int{0}
		return out
	}
	if m.C <= 2*nnz+m.R {
		t := m.Transpose()
		out.Cols = make([]int, 0, min(m.C, nnz))
		out.Indptr = make([]int, 1, min(m.C, nnz)+1)
		for j := 0; j < t.R; j++ {
			if t.Indptr[j+1] > t.Indptr[j] {
				out.Cols = append(out.Cols, j)
				out.Indptr = append(out.Indptr, t.Indptr[j+1])
			}
		}
		copy(out.Rows, t.Indices)
		copy(out.Values, t.Values)
		return out
	}
	// Sort the positions of the entries by column; a stable sort keeps the
	// rows of a column increasing.
	perm := make([]int, nnz)
	for k := range perm {
		perm[k] = k
	}
	rowOf := make([]int, nnz)
	for i := 0; i < m.R; i++ {
		for k := m.Indptr[i]; k < m.Indptr[i+1]; k++ {
			rowOf[k] = i
		}
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(m.Indices[a], m.Indices[b]) })
	out.Indptr = []int{0}
	for p, k := range perm {
		j := m.Indices[k]
		if len(out.Cols) == 0 || out.Cols[len(out.Cols)-1] != j {
			if len(out.Cols) > 0 {
				out.Indptr = append(out.Indptr, p)
			}
			out.Cols = append(out.Cols, j)
		}
		out.Rows[p] = rowOf[k]
		out.Values[p] = m.Values[k]
	}
	out.Indptr = append(out.Indptr, nnz)
	return out
}

// Dims returns the number of rows and columns of the matrix.
func (c *Columns) Dims() (int, int) { return c.R, c.C }

// Col returns the rows and values of column j (shared, not copied); both are
// empty for a column without entries. O(log len(Cols)).
func (c *Columns) Col(j int) ([]int, []float64) {
	k, ok := slices.BinarySearch(c.Cols, j)
	if !ok {
		return nil, nil
	}
	return c.Rows[c.Indptr[k]:c.Indptr[k+1]], c.Values[c.Indptr[k]:c.Indptr[k+1]]
}

// MulTDense returns Mᵀ·B restricted to the non-empty columns of M, for a
// dense r×t B: row k of the result is row Cols[k] of MᵀB (every other row of
// MᵀB is zero). A linear model's weights over sparse training points are
// formed this way in O(nnz·t) time and O(len(Cols)·t) memory, whatever the
// width. It returns an empty matrix when M has no entries or t = 0.
func (c *Columns) MulTDense(b *mat.Dense) *mat.Dense {
	br, t := b.Dims()
	if br != c.R {
		panic(mat.ErrShape)
	}
	if len(c.Cols) == 0 || t == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(len(c.Cols), t, nil)
	for k := range c.Cols {
		o := out.RawRowView(k)
		for p := c.Indptr[k]; p < c.Indptr[k+1]; p++ {
			v := c.Values[p]
			for q, bv := range b.RawRowView(c.Rows[p]) {
				o[q] += v * bv
			}
		}
	}
	return out
}

// ToDense returns M as a dense matrix. O(r·c) memory: callers with data of
// unbounded width must bound r·c first.
func (m *CSR) ToDense() *mat.Dense {
	if m.R == 0 || m.C == 0 {
		return &mat.Dense{}
	}
	d := mat.NewDense(m.R, m.C, nil)
	for i := 0; i < m.R; i++ {
		idx, val := m.Row(i)
		row := d.RawRowView(i)
		for k, j := range idx {
			row[j] = val[k]
		}
	}
	return d
}

// RowSqNorms returns ‖m_i‖² for every row. O(nnz).
func (m *CSR) RowSqNorms() []float64 {
	out := make([]float64, m.R)
	for i := range out {
		_, val := m.Row(i)
		s := 0.0
		for _, v := range val {
			s += v * v
		}
		out[i] = s
	}
	return out
}

// MulVec computes dst = M·x (len(x) = c, len(dst) = r). O(nnz).
func (m *CSR) MulVec(dst, x []float64) {
	for i := 0; i < m.R; i++ {
		idx, val := m.Row(i)
		s := 0.0
		for k, j := range idx {
			s += val[k] * x[j]
		}
		dst[i] = s
	}
}

// MulTVec computes dst = Mᵀ·x (len(x) = r, len(dst) = c), overwriting dst. O(nnz + c).
func (m *CSR) MulTVec(dst, x []float64) {
	clear(dst)
	for i := 0; i < m.R; i++ {
		xi := x[i]
		if xi == 0 {
			continue
		}
		idx, val := m.Row(i)
		for k, j := range idx {
			dst[j] += val[k] * xi
		}
	}
}

// MulDense computes dst = M·B for a dense c×t matrix B; dst must be r×t. O(nnz·t).
func (m *CSR) MulDense(dst *mat.Dense, b *mat.Dense) {
	_, t := b.Dims()
	for i := 0; i < m.R; i++ {
		out := dst.RawRowView(i)
		clear(out)
		idx, val := m.Row(i)
		for k, j := range idx {
			v := val[k]
			brow := b.RawRowView(j)
			for c := 0; c < t; c++ {
				out[c] += v * brow[c]
			}
		}
	}
}

// MulABt computes dst = A·Bᵀ for CSR A (r×d) and B (s×d), with bc = B.Columns()
// precomputed by the caller (it is reused across row blocks); dst is r×s.
// Cost O(Σ_i Σ_{k∈row i} (log ncols(B) + nnz(column k of B))), memory
// independent of d.
func MulABt(dst *mat.Dense, a *CSR, bc *Columns) {
	for i := 0; i < a.R; i++ {
		out := dst.RawRowView(i)
		clear(out)
		idx, val := a.Row(i)
		lo := 0 // the columns of a row increase: search only what is left
		for k, f := range idx {
			p, ok := slices.BinarySearch(bc.Cols[lo:], f)
			lo += p
			if !ok {
				continue
			}
			v := val[k]
			a, b := bc.Indptr[lo], bc.Indptr[lo+1]
			cv := bc.Values[a:b]
			for q, j := range bc.Rows[a:b] {
				out[j] += v * cv[q]
			}
		}
	}
}

// MulDenseBt computes dst = A·Bᵀ for CSR A (r×d) and dense B (s×d); dst is r×s. O(nnz(A)·s).
func MulDenseBt(dst *mat.Dense, a *CSR, b *mat.Dense) {
	s, _ := b.Dims()
	for i := 0; i < a.R; i++ {
		out := dst.RawRowView(i)
		idx, val := a.Row(i)
		for j := 0; j < s; j++ {
			brow := b.RawRowView(j)
			sum := 0.0
			for k, f := range idx {
				sum += val[k] * brow[f]
			}
			out[j] = sum
		}
	}
}
