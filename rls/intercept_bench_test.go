package rls

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
)

// BenchmarkIntercept: what the unpenalized intercept costs on the one-pass
// paths selection uses, after one (untimed) Fit with and without
// Options.Intercept — leave-one-out at the 31 λ = 2^-15 … 2^15 (AtGrid, then
// LeaveOneOut) and 10-fold (HoldOutPath) — in the linear form (r = d + 1 =
// 51, d = 50) at m = 10,000 and the dual gaussian form at m = 1000. The
// intercept adds one column to the path's (m×r)·(r×L(t+1)) product (v = A1),
// O(m·t) per λ for b and the corrections, and O(|H|²) per hold-out (O(|H|r)
// on the Woodbury path, v_H as one more column). ns/λ is the cost of one λ.
//
//	go test -run xxx -bench Intercept -benchmem -benchtime 5x ./rls
func BenchmarkIntercept(b *testing.B) {
	lambdas := pathLambdas()
	cases := []struct {
		name string
		m    int
		opt  func(m int) Options
	}{
		{"linear", 10000, func(int) Options { return linearOptions() }},
		{"dual", 1000, func(int) Options { return Options{Kernel: benchGaussian(), Form: learn.Dual} }},
	}
	for _, c := range cases {
		x, y := benchProblem(c.m)
		perm := rand.New(rand.NewPCG(10, uint64(c.m))).Perm(c.m)
		folds := make([][]int, 10)
		for k, i := range perm {
			folds[k%10] = append(folds[k%10], i)
		}
		for _, icpt := range []bool{false, true} {
			var r *RLS
			for _, scheme := range []string{"loo", "kfold10"} {
				b.Run(fmt.Sprintf("%s/%s/%s/intercept=%v", c.name, sizeName(c.m), scheme, icpt), func(b *testing.B) {
					if r == nil {
						opt := c.opt(c.m)
						opt.Intercept = icpt
						var err error
						if r, err = Fit(x, y, opt); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportAllocs()
					for b.Loop() {
						if scheme == "kfold10" {
							if err := r.HoldOutPath(folds, lambdas, func(int, *mat.Dense) error { return nil }); err != nil {
								b.Fatal(err)
							}
							continue
						}
						at := r.AtGrid(lambdas)
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
}
