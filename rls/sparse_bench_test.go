package rls

import (
	"fmt"
	"testing"

	"github.com/rlskit/rlskit/internal/linalg"
)

// The shape of Pahikkala, Suominen & Boberg 2012, Table 1: sparse gaussian RLS on m = 5000 rows with
// n = 500 … 2500 basis vectors. Training is O(mn²); after it, LOO is O(mn) and
// selecting λ over 20 values by LOO costs about one training, while the naive
// route retrains once per λ.
//
//	go test -tags openblas -run xxx -bench Table1 -benchtime 1x ./rls
func BenchmarkTable1(b *testing.B) {
	if !linalg.Fast() {
		b.Skip("m = 5000 is sized for the openblas build")
	}
	const m = 5000
	x, y := benchProblem(m)
	grid := make([]float64, 20)
	for k := range grid {
		grid[k] = float64(uint64(1)<<k) / (1 << 15) // 2^-15 … 2^4, as in Pahikkala, Suominen & Boberg 2012
	}
	for _, n := range []int{500, 1000, 1500, 2000, 2500} {
		basis := make([]int, n)
		for i := range basis {
			basis[i] = i * (m / n)
		}
		opt := Options{Kernel: benchGaussian(), Basis: basis}
		r, err := Fit(x, y, opt)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("train/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(x, y, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("loo/n=%d", n), func(b *testing.B) {
			s, _ := r.Solve(1)
			for b.Loop() {
				if _, err := s.LeaveOneOut(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("select20/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, l := range grid {
					s, err := r.Solve(l)
					if err != nil {
						b.Fatal(err)
					}
					s.LeaveOneOut()
				}
			}
		})
		b.Run(fmt.Sprintf("naive20/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, l := range grid[:2] { // two retrainings, reported per λ below
					r2, err := Fit(x, y, opt)
					if err != nil {
						b.Fatal(err)
					}
					s, _ := r2.Solve(l)
					s.LeaveOneOut()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N)*20/1e9, "s/20λ")
		})
	}
}

// BenchmarkSparseLOO31: sparse gaussian RLS, m = 20,000, n = 500, LOO over 31 λ,
// end to end (kernel block, factor, path).
func BenchmarkSparseLOO31(b *testing.B) {
	if !linalg.Fast() {
		b.Skip("sized for the openblas build")
	}
	const m, n = 20000, 500
	x, y := benchProblem(m)
	basis := make([]int, n)
	for i := range basis {
		basis[i] = i * (m / n)
	}
	for b.Loop() {
		r, err := Fit(x, y, Options{Kernel: benchGaussian(), Basis: basis})
		if err != nil {
			b.Fatal(err)
		}
		for e := -15; e <= 15; e++ {
			s, err := r.Solve(float64(uint64(1)<<(e+15)) / (1 << 15))
			if err != nil {
				b.Fatal(err)
			}
			s.LeaveOneOut()
		}
	}
}
