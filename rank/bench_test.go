package rank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
)

// benchData: m rows of 20 standard-normal features; labels ±1 from a smooth
// function (about half positive), so LPO-AUC has ~m²/4 pairs.
func benchData(m int) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(uint64(m), 11))
	x := mat.NewDense(m, 20, nil)
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < 20; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, math.Copysign(1, math.Sin(x.At(i, 0))+x.At(i, 1)*x.At(i, 2)+0.3*rng.NormFloat64()))
	}
	return x, y
}

// BenchmarkGlobalLPO is the whole job: kernel, factor, the LPO set-up and every
// positive–negative pair (LPO-AUC) at one λ.
func BenchmarkGlobalLPO(b *testing.B) {
	for _, m := range []int{500, 1000, 2000} {
		if m > 1000 && !linalg.Fast() {
			continue
		}
		x, y := benchData(m)
		pairs := cv.PositiveNegativePairs(mat.Col(nil, 0, y))
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			for b.Loop() {
				g, err := FitGlobal(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.05}})
				if err != nil {
					b.Fatal(err)
				}
				s, err := g.Solve(1)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := s.LeavePairOut(pairs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(pairs)), "pairs")
		})
	}
}

// BenchmarkGlobalLPOPairs times the pairs alone, after training and the set-up:
// the O(1)-per-pair part (Pahikkala et al. 2009, sect. 3.4).
func BenchmarkGlobalLPOPairs(b *testing.B) {
	for _, m := range []int{500, 1000, 2000} {
		if m > 1000 && !linalg.Fast() {
			continue
		}
		x, y := benchData(m)
		pairs := cv.PositiveNegativePairs(mat.Col(nil, 0, y))
		g, _ := FitGlobal(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.05}})
		s, _ := g.Solve(1)
		s.LeavePairOut(pairs) // set-up
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.LeavePairOut(pairs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pairs)), "ns/pair")
		})
	}
}

// BenchmarkQueryLQO: gaussian queryrank, m rows in m/30 queries, leave-query-out
// over 31 λ, end to end.
func BenchmarkQueryLQO(b *testing.B) {
	for _, m := range []int{750, 1500, 3000} {
		if m > 1500 && !linalg.Fast() {
			continue
		}
		x, y := benchData(m)
		q := make([]int, m)
		for i := range q {
			q[i] = i % (m / 30)
		}
		grid := make([]float64, 31)
		for k := range grid {
			grid[k] = math.Ldexp(1, k-15)
		}
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			for b.Loop() {
				qr, err := FitQuery(x, y, q, Options{Kernel: kernel.Gaussian{Gamma: 0.05}})
				if err != nil {
					b.Fatal(err)
				}
				for _, l := range grid {
					s, err := qr.Solve(l)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.LeaveQueryOut(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkQueryLQOPath is BenchmarkQueryLQO through HoldOutPath: every λ of
// the grid in one pass (what selection.Select runs), end to end.
func BenchmarkQueryLQOPath(b *testing.B) {
	for _, m := range []int{750, 1500, 3000} {
		if m > 1500 && !linalg.Fast() {
			continue
		}
		x, y := benchData(m)
		q := make([]int, m)
		for i := range q {
			q[i] = i % (m / 30)
		}
		grid := make([]float64, 31)
		for k := range grid {
			grid[k] = math.Ldexp(1, k-15)
		}
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			for b.Loop() {
				qr, err := FitQuery(x, y, q, Options{Kernel: kernel.Gaussian{Gamma: 0.05}})
				if err != nil {
					b.Fatal(err)
				}
				if err := qr.HoldOutPath(qr.Queries(), grid, func(int, *mat.Dense) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQueryFit is the training alone of the dual query ranker: the
// kernel matrix, SKS, its eigendecomposition and Ψ.
func BenchmarkQueryFit(b *testing.B) {
	for _, m := range []int{750, 1500, 3000} {
		if m > 1500 && !linalg.Fast() {
			continue
		}
		x, y := benchData(m)
		q := make([]int, m)
		for i := range q {
			q[i] = i % (m / 30)
		}
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := FitQuery(x, y, q, Options{Kernel: kernel.Gaussian{Gamma: 0.05}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
