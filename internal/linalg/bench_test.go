package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var benchSizes = []int{500, 1000, 2000}

// spdMatrix returns a well-conditioned n×n SPD matrix B Bᵀ/n + I.
func spdMatrix(n int) *mat.Dense {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	b := randDense(rng, n, n)
	a := Syrk(false, b)
	a.Scale(1/float64(n), a)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+1)
	}
	return a
}

func BenchmarkEigSym(b *testing.B) {
	for _, n := range benchSizes {
		a := spdMatrix(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := EigSym(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSVD(b *testing.B) {
	for _, n := range benchSizes {
		rng := rand.New(rand.NewPCG(uint64(n), 2))
		a := randDense(rng, n, n/4) // tall thin: the linear-kernel shape
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, _, err := SVD(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCholesky(b *testing.B) {
	for _, n := range benchSizes {
		a := spdMatrix(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Cholesky(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGemm(b *testing.B) {
	for _, n := range benchSizes {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		x, y := randDense(rng, n, n), randDense(rng, n, n)
		c := mat.NewDense(n, n, nil)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Gemm(false, false, 1, x, y, 0, c)
			}
		})
	}
}
