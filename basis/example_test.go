package basis_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/rls"
)

// Greedy grows a basis one row at a time, each step adding the one of a few
// random candidates that lowers the training error of the sparse model most.
// With the same number of basis vectors it fits better than a random basis.
func ExampleGreedy() {
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(80, 1, nil)
	y := mat.NewDense(80, 1, nil)
	for i := 0; i < 80; i++ {
		v := 8*rng.Float64() - 4
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(2*v)+0.2*(rng.Float64()-0.5))
	}
	k := kernel.Gaussian{Gamma: 1}
	const n, lambda = 8, 0.01

	greedy, err := basis.Greedy(x, y, k, n, basis.GreedyOptions{Lambda: lambda, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	random, err := basis.Random(80, n, 1)
	if err != nil {
		log.Fatal(err)
	}
	// The training error ‖Y − Ŷ‖² of the sparse model over each basis.
	trainingError := func(b []int) float64 {
		r, err := rls.Fit(x, y, rls.Options{Kernel: k, Basis: b})
		if err != nil {
			log.Fatal(err)
		}
		s, err := r.Solve(lambda)
		if err != nil {
			log.Fatal(err)
		}
		res := s.Residuals()
		return mat.Dot(res.ColView(0), res.ColView(0))
	}
	fmt.Printf("greedy basis of %d rows: training error %.3f\n", len(greedy), trainingError(greedy))
	fmt.Printf("random basis of %d rows: training error %.3f\n", len(random), trainingError(random))
	// Output:
	// greedy basis of 8 rows: training error 0.422
	// random basis of 8 rows: training error 3.188
}
