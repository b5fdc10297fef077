package pairkernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMulVec compares the generalized vec trick with the product by
// the explicit n×n pairwise kernel matrix (formed once, outside the timing)
// for the symmetric kernel (two terms) on n pairs of m objects:
// O(n·m) per term against O(n²).
//
//	go test -run '^$' -bench MulVec -benchmem ./pairkernel/
func BenchmarkMulVec(b *testing.B) {
	for _, sh := range []struct{ n, m int }{{1000, 50}, {4000, 100}} {
		rng := rand.New(rand.NewPCG(25, 8))
		pr := newProblem(rng, Symmetric, sh.n, sh.m, sh.m, 1, 2, 2)
		base, terms := pr.base(b, false), pr.terms(b)
		op, err := NewOperator(base, terms, pr.train, pr.train)
		if err != nil {
			b.Fatal(err)
		}
		v := randVec(rng, sh.n)
		dst := make([]float64, sh.n)
		b.Run(fmt.Sprintf("gvt/n=%d,m=%d", sh.n, sh.m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				op.MulVec(dst, v)
			}
		})
		d := pr.dense(pr.train, pr.train, false)
		x, y := mat.NewVecDense(sh.n, v), mat.NewVecDense(sh.n, dst)
		b.Run(fmt.Sprintf("dense/n=%d,m=%d", sh.n, sh.m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				y.MulVec(d, x)
			}
		})
	}
}
