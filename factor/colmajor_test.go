package factor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// Build's linear form lays the data with the bias column out column by
// column for the SVD instead of copying them row by row (WithBias) first:
// the factor must be NewLinear(WithBias(x, bias))'s, bit for bit — the SVD
// sees the same column-major matrix either way — for dense data (also a
// view with a row stride wider than its width), CSR data and any other
// mat.Matrix, with and without the bias column, over several row blocks.
func TestLinearColumnMajorEqualsWithBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	const m, d = 150, 7 // 150 rows: the 64-row blocks and a partial one
	big := randX(rng, m, d+3)
	for i := 0; i < m; i++ { // zeros, so that the CSR form stores fewer entries
		big.Set(i, 1+i%d, 0)
	}
	dense := mat.DenseCopyOf(big.Slice(0, m, 0, d))
	view := big.Slice(0, m, 2, d+2).(*mat.Dense) // stride d+3
	var indptr, idx []int
	var val []float64
	indptr = append(indptr, 0)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			if v := dense.At(i, j); v != 0 {
				idx, val = append(idx, j), append(val, v)
			}
		}
		indptr = append(indptr, len(idx))
	}
	csr, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	other := mat.Transpose{Matrix: mat.DenseCopyOf(dense.T())} // neither *mat.Dense nor CSR
	for _, bias := range []float64{0, 1, 2.5} {
		for _, c := range []struct {
			name string
			x    mat.Matrix
		}{{"dense", dense}, {"view", view}, {"csr", csr}, {"other", other}} {
			t.Run(fmt.Sprintf("%s/bias=%g", c.name, bias), func(t *testing.T) {
				got, err := Build(c.x, kernel.Linear{Bias: bias}, Request{Form: Linear})
				if err != nil {
					t.Fatal(err)
				}
				want, err := NewLinear(WithBias(c.x, bias))
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(got.U, want.U) || !mat.Equal(got.T, want.T) || !slices.Equal(got.S, want.S) ||
					!slices.Equal(got.E, want.E) || !slices.Equal(got.Lev, want.Lev) {
					t.Errorf("the factor differs from NewLinear(WithBias(x, %g)): U by %.2e, T by %.2e, S by %.2e",
						bias, maxDiff(got.U, want.U), maxDiff(got.T, want.T),
						maxDiff(mat.NewVecDense(len(got.S), got.S), mat.NewVecDense(len(want.S), want.S)))
				}
				if _, cols := got.U.Dims(); bias == 0 && cols != d || bias != 0 && cols != d+1 {
					t.Errorf("rank %d with bias %g", cols, bias)
				}
			})
		}
	}
}
