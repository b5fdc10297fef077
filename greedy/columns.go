package greedy

import (
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/matrix"
)

// columns gives the candidates — the columns of X — in the engine's row
// order: engine row r is data row perm[r] (the rows of each fold are
// contiguous, the rows in no fold last). Dense data is read in place; CSR data
// is transposed once into per-column lists (O(nnz) extra memory).
type columns struct {
	m, d  int
	perm  []int // engine row → data row
	pos   []int // data row → engine row
	dense *mat.Dense
	// sparse columns: the entries of column i are idx[ptr[i]:ptr[i+1]] (engine rows) and val[…]
	ptr   []int
	idx   []int
	val   []float64
	norm2 []float64 // ‖v_i‖²
}

// newColumns indexes X (*mat.Dense or *matrix.CSR; anything else is copied
// into a Dense) for the engine row order perm. O(m·d) dense, O(nnz) sparse.
func newColumns(x mat.Matrix, perm []int) *columns {
	m, d := x.Dims()
	c := &columns{m: m, d: d, perm: perm, pos: make([]int, m), norm2: make([]float64, d)}
	for r, i := range perm {
		c.pos[i] = r
	}
	switch xx := x.(type) {
	case *matrix.CSR:
		c.ptr = make([]int, d+1)
		for _, j := range xx.Indices[:xx.Indptr[m]] {
			c.ptr[j+1]++
		}
		for j := 0; j < d; j++ {
			c.ptr[j+1] += c.ptr[j]
		}
		nnz := c.ptr[d]
		c.idx, c.val = make([]int, nnz), make([]float64, nnz)
		next := append([]int(nil), c.ptr[:d]...)
		for r, i := range perm {
			cols, vals := xx.Row(i)
			for k, j := range cols {
				c.idx[next[j]], c.val[next[j]] = r, vals[k]
				next[j]++
				c.norm2[j] += vals[k] * vals[k]
			}
		}
	default:
		dd, ok := x.(*mat.Dense)
		if !ok {
			dd = mat.DenseCopyOf(x)
		}
		c.dense = dd
		for i := 0; i < m; i++ {
			for j, v := range dd.RawRowView(i) {
				c.norm2[j] += v * v
			}
		}
	}
	return c
}

// sparse reports whether the columns are stored sparse.
func (c *columns) sparse() bool { return c.dense == nil }

// fillT writes the columns i0..i1-1 as the rows of dst (at least (i1−i0)×m),
// in engine row order. O(m·(i1−i0)) dense; zeroing plus the entries sparse.
func (c *columns) fillT(i0, i1 int, dst *mat.Dense) {
	raw := dst.RawMatrix()
	if c.sparse() {
		for b := 0; b < i1-i0; b++ {
			row := raw.Data[b*raw.Stride : b*raw.Stride+c.m]
			clear(row)
			j := i0 + b
			for k := c.ptr[j]; k < c.ptr[j+1]; k++ {
				row[c.idx[k]] = c.val[k]
			}
		}
		return
	}
	// tiles of 8 engine rows: 8 short reads per row of the tile, one cache
	// line written per candidate
	xr := c.dense.RawMatrix()
	nb := i1 - i0
	for r0 := 0; r0+8 <= c.m; r0 += 8 {
		var row [8][]float64
		for k := range row {
			off := c.perm[r0+k]*xr.Stride + i0
			row[k] = xr.Data[off : off+nb]
		}
		for b := 0; b < nb; b++ {
			dst := raw.Data[b*raw.Stride+r0 : b*raw.Stride+r0+8 : b*raw.Stride+r0+8]
			dst[0], dst[1], dst[2], dst[3] = row[0][b], row[1][b], row[2][b], row[3][b]
			dst[4], dst[5], dst[6], dst[7] = row[4][b], row[5][b], row[6][b], row[7][b]
		}
	}
	for r := c.m &^ 7; r < c.m; r++ {
		off := c.perm[r]*xr.Stride + i0
		for b, v := range xr.Data[off : off+nb] {
			raw.Data[b*raw.Stride+r] = v
		}
	}
}

// col writes column j into dst (length m) in engine row order.
func (c *columns) col(j int, dst []float64) {
	if c.sparse() {
		clear(dst)
		for k := c.ptr[j]; k < c.ptr[j+1]; k++ {
			dst[c.idx[k]] = c.val[k]
		}
		return
	}
	for i := 0; i < c.m; i++ {
		dst[c.pos[i]] = c.dense.At(i, j)
	}
}

// sub returns the columns idx of X (data row order) as a dense m×len(idx)
// matrix. O(m·len(idx)).
func (c *columns) sub(idx []int) *mat.Dense {
	out := mat.NewDense(c.m, len(idx), nil)
	v := make([]float64, c.m)
	for n, j := range idx {
		c.col(j, v)
		for r, i := range c.perm {
			out.Set(i, n, v[r])
		}
	}
	return out
}
