package cg_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
)

// sparseProblem builds an m×d CSR matrix with nnz random columns per row and
// normal values, and y = X·w_true + noise (fixed seed).
func sparseProblem(m, d, nnz int) (*matrix.CSR, *mat.Dense) {
	rng := rand.New(rand.NewPCG(2024, uint64(m)))
	indptr := make([]int, m+1)
	indices := make([]int, 0, m*nnz)
	values := make([]float64, 0, m*nnz)
	row := make([]int, 0, nnz)
	for i := 0; i < m; i++ {
		row = row[:0]
		for len(row) < nnz {
			j := rng.IntN(d)
			if !slices.Contains(row, j) {
				row = append(row, j)
			}
		}
		slices.Sort(row)
		for _, j := range row {
			indices = append(indices, j)
			values = append(values, rng.NormFloat64())
		}
		indptr[i+1] = len(indices)
	}
	x, err := matrix.NewCSR(m, d, indptr, indices, values)
	if err != nil {
		panic(err)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	y := make([]float64, m)
	x.MulVec(y, w)
	for i := range y {
		y[i] += 0.1 * rng.NormFloat64()
	}
	return x, mat.NewDense(m, 1, y)
}

// BenchmarkGlobalRankSparse trains linear RankRLS over all pairs (L = mI − 11ᵀ,
// about m²/2 pairs) on m×d sparse data with 20 non-zeros per row, λ = 1,
// Tol 1e-6, MaxIter 10000 (so the iteration count is the one convergence needs).
// The cost per iteration is O(nnz + m + d) and is reported as ns/iteration. The
// number of iterations depends on the conditioning: a square random X (m = d)
// has singular values down to about 0, so the system's condition number
// approaches m·σ_max²/λ and CG needs thousands of iterations; with d = 4m or
// d = 2m it needs tens.
func BenchmarkGlobalRankSparse(b *testing.B) {
	for _, sz := range [][2]int{{5000, 20000}, {10000, 20000}, {20000, 20000}, {5000, 5000}, {10000, 10000}} {
		m, d := sz[0], sz[1]
		b.Run(fmt.Sprintf("m=%d,d=%d", m, d), func(b *testing.B) {
			x, y := sparseProblem(m, d, 20)
			p := cg.Problem{X: x, Y: y, Loss: learn.AllPairs}
			opt := cg.Options{Lambda: 1, Tol: 1e-6, MaxIter: 10000}
			b.ResetTimer()
			var res *cg.Result
			for i := 0; i < b.N; i++ {
				var err error
				if res, err = cg.Solve(p, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			it := res.Iterations[0]
			b.ReportMetric(float64(it), "iterations")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(max(it, 1)), "ns/iteration")
			if !res.Converged[0] {
				b.Logf("not converged: residual %g after %d iterations", res.Residual[0], it)
			}
		})
	}
}
