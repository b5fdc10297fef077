package linalg

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// SVDColMajor of A given column by column is SVD of A, bit for bit: the
// tall route hands LAPACK the same column-major array SVD builds itself,
// and the other shapes are transposed back and go through SVD. Shapes that
// do not fit are refused.
func TestSVDColMajor(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][2]int{{1, 1}, {5, 3}, {3, 5}, {80, 20}, {20, 80}, {40, 40}, {1000, 37}} {
		m, n := sh[0], sh[1]
		t.Run(fmt.Sprintf("%dx%d", m, n), func(t *testing.T) {
			a := randDense(rng, m, n)
			u, s, v, err := SVD(a)
			if err != nil {
				t.Fatal(err)
			}
			ac := make([]float64, m*n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					ac[j*m+i] = a.At(i, j)
				}
			}
			uc, sc, vc, err := SVDColMajor(ac, m, n)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(u, uc) || !mat.Equal(v, vc) || !slices.Equal(s, sc) {
				t.Errorf("differs from SVD: U by %.2e, V by %.2e", maxAbsDiff(u, uc), maxAbsDiff(v, vc))
			}
		})
	}
	for _, c := range []struct{ m, n, len int }{{0, 3, 0}, {3, 0, 0}, {3, 2, 5}, {-1, -1, 1}} {
		if _, _, _, err := SVDColMajor(make([]float64, c.len), c.m, c.n); !errors.Is(err, ErrShape) {
			t.Errorf("%d×%d from %d values: err %v, want ErrShape", c.m, c.n, c.len, err)
		}
	}
}
