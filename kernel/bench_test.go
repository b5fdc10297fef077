package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGaussianBlock computes the n×n Gram matrix of n points in 50 dimensions.
func BenchmarkGaussianBlock(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		x, xs := randSparse(rng, n, 50, 1)
		k := Gaussian{Gamma: 0.02}
		b.Run(fmt.Sprintf("dense/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := k.Block(x, x); err != nil {
					b.Fatal(err)
				}
			}
		})
		_ = xs
		_, sp := randSparse(rng, n, 2000, 0.01)
		b.Run(fmt.Sprintf("csr-d2000-1pct/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := k.Block(sp, sp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
