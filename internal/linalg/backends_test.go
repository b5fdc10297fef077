//go:build openblas

package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The openblas build must agree with the pure-Go backend to 1e-10: eigenvalues,
// eigenvectors up to sign, and the reconstruction ‖VΛVᵀ − A‖.
func TestBackendsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{5, 50, 200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ev := make([]float64, n)
			for i := range ev {
				ev[i] = float64(i) + 0.5 // gap 1: eigenvectors are well determined
			}
			a := withSpectrum(rng, ev)
			wFast, vFast, err := EigSym(a)
			if err != nil {
				t.Fatal(err)
			}
			vSlow := mat.DenseCopyOf(a)
			wSlow := make([]float64, n)
			if err := eigSymGonum(vSlow.RawMatrix(), wSlow); err != nil {
				t.Fatal(err)
			}
			for i := range wFast {
				if d := math.Abs(wFast[i] - wSlow[i]); d > 1e-10 {
					t.Errorf("eigenvalue %d: %v vs %v", i, wFast[i], wSlow[i])
				}
			}
			for j := 0; j < n; j++ {
				sign := 1.0
				if mat.Dot(vFast.ColView(j), vSlow.ColView(j)) < 0 {
					sign = -1
				}
				for i := 0; i < n; i++ {
					if d := math.Abs(vFast.At(i, j) - sign*vSlow.At(i, j)); d > 1e-10 {
						t.Fatalf("eigenvector %d differs at %d by %g", j, i, d)
					}
				}
			}
			if d := maxAbsDiff(reconstruct(vFast, wFast, vFast), a); d > 1e-10 {
				t.Errorf("openblas reconstruction error %g", d)
			}
			if d := maxAbsDiff(reconstruct(vSlow, wSlow, vSlow), a); d > 1e-10 {
				t.Errorf("gonum reconstruction error %g", d)
			}

			// thin SVD of a tall matrix with known singular values
			b := mat.NewDense(n+7, n, nil)
			q := randOrthogonal(rng, n+7)
			for i := 0; i < n+7; i++ {
				for j := 0; j < n; j++ {
					b.Set(i, j, q.At(i, j)*float64(n-j))
				}
			}
			_, sFast, _, err := SVD(b)
			if err != nil {
				t.Fatal(err)
			}
			for j := range sFast {
				if d := math.Abs(sFast[j] - float64(n-j)); d > 1e-10 {
					t.Errorf("singular value %d = %v, want %d", j, sFast[j], n-j)
				}
			}
		})
	}
}

// SerialBLAS runs OpenBLAS on one thread and restores the count afterwards.
func TestSerialBLAS(t *testing.T) {
	before := blasThreads()
	inside := 0
	SerialBLAS(func() { inside = blasThreads() })
	if inside != 1 || blasThreads() != before {
		t.Errorf("threads: before %d, inside %d, after %d", before, inside, blasThreads())
	}
}
