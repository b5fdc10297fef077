package basis

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// BenchmarkGreedy selects n = 100 basis vectors among m = 2000 rows of d = 10
// standard normal features, y = sin(x₀) + x₁x₂ + noise, gaussian kernel with
// gamma = 1/d, λ = 0.1, the default 60 candidates per step.
//
//	go test -run xxx -bench Greedy -benchtime 3x ./basis
func BenchmarkGreedy(b *testing.B) {
	const m, d, n = 2000, 10, 100
	rng := rand.New(rand.NewPCG(2024, m))
	x := mat.NewDense(m, d, nil)
	y := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		y.Set(i, 0, math.Sin(row[0])+row[1]*row[2]+0.1*rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 1.0 / d}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sel, err := Greedy(x, y, k, n, GreedyOptions{Lambda: 0.1, Seed: uint64(i)})
		if err != nil {
			b.Fatal(err)
		}
		if len(sel) != n {
			b.Fatalf("%d rows selected", len(sel))
		}
	}
}
