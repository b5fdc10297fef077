package rls

import (
	"fmt"
	"testing"
)

// BenchmarkLOOGrid: LOO predictions at the 31 λ = 2^-15 … 2^15 after one
// (untimed) Fit, per λ (Solve, then LeaveOneOut: U read twice per λ, by a
// matrix–vector product and by diag(A)'s loop) against the batch path
// (AtGrid, then LeaveOneOut: one (m×r)·(r×c(t+1)) product per chunk of c λ)
// — O(m·r) per λ both, the linear form (r = d + 1 = 51) at m = 10,000 and
// 50,000 (issue 26's workload) and the dual gaussian (r = m) at m = 1000 and
// 2000. The ns/λ metric is the cost of one λ.
//
//	go test -run xxx -bench LOOGrid -benchtime 5x ./rls
func BenchmarkLOOGrid(b *testing.B) {
	lambdas := pathLambdas()
	cases := []struct {
		name string
		m    int
		fit  func(b *testing.B, m int) *RLS
	}{
		{"linear", 10000, benchLinearFit},
		{"linear", 50000, benchLinearFit},
		{"dual", 1000, benchDualFit},
		{"dual", 2000, benchDualFit},
	}
	for _, c := range cases {
		var r *RLS
		for _, way := range []string{"per-λ", "grid"} {
			b.Run(fmt.Sprintf("%s/%s/%s", c.name, sizeName(c.m), way), func(b *testing.B) {
				if r == nil {
					r = c.fit(b, c.m)
				}
				for b.Loop() {
					at := r.At
					if way == "grid" {
						at = r.AtGrid(lambdas)
					}
					for _, l := range lambdas {
						s, err := at(l)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := s.(*Solution).LeaveOneOut(); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lambdas)), "ns/λ")
			})
		}
	}
}

// benchLinearFit is the linear (primal) fit of the m-row problem, d = 50.
func benchLinearFit(b *testing.B, m int) *RLS {
	b.Helper()
	x, y := benchProblem(m)
	r, err := Fit(x, y, linearOptions())
	if err != nil {
		b.Fatal(err)
	}
	return r
}
