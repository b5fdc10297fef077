package matrix

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNewCSRChecks(t *testing.T) {
	cases := []struct {
		name    string
		r, c    int
		indptr  []int
		indices []int
		values  []float64
	}{
		{"indptr too short", 2, 3, []int{0, 1}, []int{0}, []float64{1}},
		{"indptr not from 0", 1, 3, []int{1, 1}, []int{0}, []float64{1}},
		{"indptr beyond values", 2, 3, []int{0, 5, 2}, []int{0, 1}, []float64{1, 2}},
		{"indptr decreasing", 2, 3, []int{0, 2, 1}, []int{0, 1}, []float64{1, 2}},
		{"column out of range", 1, 3, []int{0, 1}, []int{3}, []float64{1}},
		{"columns not increasing", 1, 3, []int{0, 2}, []int{1, 1}, []float64{1, 2}},
		{"values and indices differ", 1, 3, []int{0, 1}, []int{0}, []float64{1, 2}},
	}
	for _, c := range cases {
		if _, err := NewCSR(c.r, c.c, c.indptr, c.indices, c.values); !errors.Is(err, ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", c.name, err)
		}
	}
	m, err := NewCSR(2, 3, []int{0, 2, 3}, []int{0, 2, 1}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.At(0, 2) != 2 || m.At(1, 1) != 3 || m.At(1, 0) != 0 {
		t.Error("At")
	}
	tr := m.Transpose()
	if tr.At(2, 0) != 2 || tr.At(1, 1) != 3 {
		t.Error("Transpose")
	}
	if d := m.ToDense(); d.At(0, 0) != 1 || d.At(1, 1) != 3 {
		t.Error("ToDense")
	}
}

// randCSR returns an r×c matrix with about density·r·c entries.
func randCSR(rng *rand.Rand, r, c int, density float64) *CSR {
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.Float64() < density {
				idx = append(idx, j)
				val = append(val, rng.NormFloat64())
			}
		}
		indptr = append(indptr, len(idx))
	}
	return &CSR{R: r, C: c, Indptr: indptr, Indices: idx, Values: val}
}

// Columns agrees with Transpose, on both of its paths (counting and sorting).
func TestColumnsMatchesTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		r, c    int
		density float64
	}{{5, 4, 0.5}, {7, 300, 0.02}, {3, 1000, 0.001}, {4, 6, 0}, {0, 3, 0}} {
		m := randCSR(rng, c.r, c.c, c.density)
		cols, tr := m.Columns(), m.Transpose()
		if r, cc := cols.Dims(); r != m.R || cc != m.C {
			t.Fatalf("Dims %d×%d", r, cc)
		}
		n := 0
		for j := 0; j < m.C; j++ {
			rows, vals := cols.Col(j)
			trRows, trVals := tr.Row(j)
			if !slices.Equal(rows, trRows) || !slices.Equal(vals, trVals) {
				t.Fatalf("%d×%d: column %d: %v %v, want %v %v", m.R, m.C, j, rows, vals, trRows, trVals)
			}
			if len(rows) > 0 {
				n++
			}
		}
		if n != len(cols.Cols) || !slices.IsSorted(cols.Cols) {
			t.Fatalf("%d non-empty columns, Cols %v", n, cols.Cols)
		}
		// MulTDense is the non-empty rows of Mᵀ·B.
		b := mat.NewDense(max(m.R, 1), 2, nil)
		for i := 0; i < m.R; i++ {
			b.Set(i, 0, float64(i+1))
			b.Set(i, 1, -2)
		}
		if m.R == 0 {
			continue
		}
		w := cols.MulTDense(b)
		full := mat.NewDense(m.C, 2, nil)
		full.Mul(m.ToDense().T(), b)
		for k, j := range cols.Cols {
			for q := 0; q < 2; q++ {
				if d := w.At(k, q) - full.At(j, q); d > 1e-12 || d < -1e-12 {
					t.Fatalf("MulTDense row %d (feature %d): %v, want %v", k, j, w.At(k, q), full.At(j, q))
				}
			}
		}
	}
}

// MulABt with Columns gives A·Bᵀ.
func TestMulABtColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := randCSR(rng, 6, 50, 0.2), randCSR(rng, 5, 50, 0.2)
	got := mat.NewDense(6, 5, nil)
	MulABt(got, a, b.Columns())
	var want mat.Dense
	want.Mul(a.ToDense(), b.ToDense().T())
	if !mat.EqualApprox(got, &want, 1e-12) {
		t.Errorf("MulABt:\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(&want))
	}
}

// Regression (reliability issue B): an index of 5·10⁹ in a tiny file made the
// transpose allocate O(width). Columns and MulABt cost O(nnz) whatever the width.
func TestColumnsHugeWidthCostsNNZ(t *testing.T) {
	const width = 5_000_000_000
	m, err := NewCSR(2, width, []int{0, 1, 2}, []int{0, width - 1}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cols := m.Columns()
	dst := mat.NewDense(2, 2, nil)
	MulABt(dst, m, cols)
	w := cols.MulTDense(mat.NewDense(2, 1, []float64{3, 4}))
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes for a 2-row matrix of width %d", got, width)
	}
	if !slices.Equal(cols.Cols, []int{0, width - 1}) || dst.At(1, 1) != 4 || dst.At(0, 1) != 0 || w.At(1, 0) != 8 {
		t.Errorf("Cols %v, A·Aᵀ %v, MulTDense %v", cols.Cols, mat.Formatted(dst), mat.Formatted(w))
	}
	if rows, _ := cols.Col(12345); rows != nil {
		t.Errorf("empty column has rows %v", rows)
	}
}
