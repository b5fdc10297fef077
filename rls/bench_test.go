package rls

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// Benchmarks on a regression problem with d = 50 standard normal features,
// y = sin(x₀) + x₁x₂ + noise (about half the labels positive), the gaussian kernel
// with gamma = 1/d and the linear kernel with bias 1.
//
//	go test -run xxx -bench . -benchtime 1x ./rls                  (pure Go)
//	go test -tags openblas -run xxx -bench . -benchtime 3x ./rls   (OpenBLAS/LAPACKE)

const benchD = 50

// benchLambda is the λ of the single-λ benchmarks.
const benchLambda = 0.1

type benchSet struct {
	x *mat.Dense
	y *mat.Dense
}

var benchData = struct {
	sync.Mutex
	sets map[int]benchSet
	fits map[int]*RLS // dual gaussian fits, shared by the λ-path benchmarks
}{sets: map[int]benchSet{}, fits: map[int]*RLS{}}

// benchProblem returns the m-row data set, generated once per size from a fixed seed.
func benchProblem(m int) (*mat.Dense, *mat.Dense) {
	benchData.Lock()
	defer benchData.Unlock()
	if s, ok := benchData.sets[m]; ok {
		return s.x, s.y
	}
	rng := rand.New(rand.NewPCG(2024, uint64(m)))
	x := mat.NewDense(m, benchD, nil)
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		y.Set(i, 0, math.Sin(row[0])+row[1]*row[2]+0.1*rng.NormFloat64())
	}
	benchData.sets[m] = benchSet{x, y}
	return x, y
}

func benchGaussian() kernel.Kernel { return kernel.Gaussian{Gamma: 1.0 / benchD} }

// benchDualFit returns the dual gaussian fit of the m-row problem; fits up to
// m = 2000 are cached across benchmarks (the pure-Go eigensolver is slow).
func benchDualFit(b *testing.B, m int) *RLS {
	b.Helper()
	x, y := benchProblem(m)
	benchData.Lock()
	r, ok := benchData.fits[m]
	benchData.Unlock()
	if ok {
		return r
	}
	r, err := Fit(x, y, Options{Kernel: benchGaussian(), Form: learn.Dual})
	if err != nil {
		b.Fatal(err)
	}
	benchCacheFit(m, r)
	return r
}

// benchCacheFit keeps the dual fit of the m-row problem for benchDualFit (m ≤ 2000).
func benchCacheFit(m int, r *RLS) {
	if m > 2000 || r == nil {
		return
	}
	benchData.Lock()
	benchData.fits[m] = r
	benchData.Unlock()
}

func benchSolve(b *testing.B, r *RLS, lambda float64) *Solution {
	b.Helper()
	s, err := r.Solve(lambda)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// pathLambdas are the 31 values 2^-15 … 2^15.
func pathLambdas() []float64 {
	out := make([]float64, 0, 31)
	for e := -15; e <= 15; e++ {
		out = append(out, math.Ldexp(1, e))
	}
	return out
}

func sizeName(m int) string { return fmt.Sprintf("m=%d", m) }

// BenchmarkFitDual: kernel block and eigendecomposition of the m×m gaussian kernel matrix, O(m³).
func BenchmarkFitDual(b *testing.B) {
	for _, m := range []int{500, 1000, 2000} {
		b.Run(sizeName(m), func(b *testing.B) {
			x, y := benchProblem(m)
			var r *RLS
			for b.Loop() {
				var err error
				if r, err = Fit(x, y, Options{Kernel: benchGaussian(), Form: learn.Dual}); err != nil {
					b.Fatal(err)
				}
			}
			benchCacheFit(m, r)
		})
	}
}

// BenchmarkLOOPath: Solve and LeaveOneOut at the 31 λ = 2^-15 … 2^15 after one
// (untimed) Fit: O(m²) per λ. The ns/λ metric is the cost of one λ.
func BenchmarkLOOPath(b *testing.B) {
	lambdas := pathLambdas()
	for _, m := range []int{1000, 2000, 4000} {
		b.Run(sizeName(m), func(b *testing.B) {
			if m > 2000 && !linalg.Fast() {
				b.Skipf("m=%d: the Fit is too slow with the %s backend (use -tags openblas)", m, linalg.Backend())
			}
			r := benchDualFit(b, m)
			for b.Loop() {
				for _, l := range lambdas {
					benchSolve(b, r, l).LeaveOneOut()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lambdas)), "ns/λ")
		})
	}
}

// BenchmarkSolve: one λ re-solve of a fitted dual model, O(m²t) plus diag(A) O(m²).
func BenchmarkSolve(b *testing.B) {
	for _, m := range []int{1000, 2000} {
		b.Run(sizeName(m), func(b *testing.B) {
			r := benchDualFit(b, m)
			for b.Loop() {
				benchSolve(b, r, benchLambda)
			}
		})
	}
}

// BenchmarkLeaveOneOut: the LOO predictions at a solved λ, O(m·t).
func BenchmarkLeaveOneOut(b *testing.B) {
	for _, m := range []int{1000, 2000} {
		b.Run(sizeName(m), func(b *testing.B) {
			s := benchSolve(b, benchDualFit(b, m), benchLambda)
			for b.Loop() {
				s.LeaveOneOut()
			}
		})
	}
}

// BenchmarkHoldOut10Fold: the 10 hold-out folds of a random partition at one
// solved λ, O(|H|²m + |H|³) each.
func BenchmarkHoldOut10Fold(b *testing.B) {
	for _, m := range []int{1000, 2000} {
		b.Run(sizeName(m), func(b *testing.B) {
			s := benchSolve(b, benchDualFit(b, m), benchLambda)
			perm := rand.New(rand.NewPCG(10, uint64(m))).Perm(m)
			folds := make([][]int, 10)
			for k, i := range perm {
				folds[k%10] = append(folds[k%10], i)
			}
			for b.Loop() {
				for _, h := range folds {
					if _, err := s.HoldOut(h); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkLeavePairOut: every positive–negative pair (labels: sign of y) at one
// λ. The Solve is inside the timed loop because a Solution forms the m×m matrix A
// (one O(m³) gemm) only once and keeps it.
func BenchmarkLeavePairOut(b *testing.B) {
	for _, m := range []int{500, 1000, 2000} {
		b.Run(sizeName(m), func(b *testing.B) {
			r := benchDualFit(b, m)
			var pos, neg []int
			for i, v := range mat.Col(nil, 0, r.Labels()) {
				if v > 0 {
					pos = append(pos, i)
				} else {
					neg = append(neg, i)
				}
			}
			pairs := make([]learn.Pair, 0, len(pos)*len(neg))
			for _, i := range pos {
				for _, j := range neg {
					pairs = append(pairs, learn.Pair{I: i, J: j})
				}
			}
			for b.Loop() {
				if _, _, err := benchSolve(b, r, benchLambda).LeavePairOut(pairs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(pairs)), "pairs")
		})
	}
}

var bigSizes = []int{2000, 8000}

func linearOptions() Options { return Options{Kernel: kernel.Linear{Bias: 1}} }

// sparseOptions: the gaussian kernel over a basis of 200 random rows.
func sparseOptions(m int) Options {
	basis := rand.New(rand.NewPCG(200, uint64(m))).Perm(m)[:200]
	return Options{Kernel: benchGaussian(), Form: learn.Sparse, Basis: basis}
}

// BenchmarkFitLinear: the linear kernel in the primal (thin SVD of m×(d+1)), O(m·d²).
func BenchmarkFitLinear(b *testing.B) {
	for _, m := range bigSizes {
		b.Run(sizeName(m), func(b *testing.B) {
			x, y := benchProblem(m)
			for b.Loop() {
				r, err := Fit(x, y, linearOptions())
				if err != nil {
					b.Fatal(err)
				}
				if r.Form().String() != "linear" {
					b.Fatalf("form %s, want linear", r.Form())
				}
			}
		})
	}
}

// BenchmarkFitSparse: subset of regressors over n = 200 basis rows, O(m·n²).
func BenchmarkFitSparse(b *testing.B) {
	for _, m := range bigSizes {
		b.Run(sizeName(m), func(b *testing.B) {
			x, y := benchProblem(m)
			opt := sparseOptions(m)
			for b.Loop() {
				if _, err := Fit(x, y, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLOOLinear: Solve and LeaveOneOut at one λ for the linear fit, O(m·d·t).
func BenchmarkLOOLinear(b *testing.B) {
	for _, m := range bigSizes {
		b.Run(sizeName(m), func(b *testing.B) {
			x, y := benchProblem(m)
			r, err := Fit(x, y, linearOptions())
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				benchSolve(b, r, benchLambda).LeaveOneOut()
			}
		})
	}
}

// BenchmarkLOOSparse: Solve and LeaveOneOut at one λ for the sparse fit, O(m·n·t).
func BenchmarkLOOSparse(b *testing.B) {
	for _, m := range bigSizes {
		b.Run(sizeName(m), func(b *testing.B) {
			x, y := benchProblem(m)
			r, err := Fit(x, y, sparseOptions(m))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				benchSolve(b, r, benchLambda).LeaveOneOut()
			}
		})
	}
}
