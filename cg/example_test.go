package cg_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
)

// Linear RankRLS over all pairs of a small sparse data set: the scores are
// y = 2·x₀ − x₁, and the learned weights recover that ordering direction.
func ExampleSolve() {
	// Rows: (1,0), (0,1), (2,0), (1,1), (0,2), (3,1).
	x, err := matrix.NewCSR(6, 2,
		[]int{0, 1, 2, 3, 5, 6, 8},
		[]int{0, 1, 0, 0, 1, 1, 0, 1},
		[]float64{1, 1, 2, 1, 1, 2, 3, 1})
	if err != nil {
		panic(err)
	}
	y := mat.NewDense(6, 1, []float64{2, -1, 4, 1, -2, 5})
	res, err := cg.Solve(cg.Problem{X: x, Y: y, Loss: learn.AllPairs, Outputs: []string{"score"}}, cg.Options{Lambda: 1e-3, Tol: 1e-10})
	if err != nil {
		panic(err)
	}
	fmt.Printf("w = (%.3f, %.3f), converged %v in %d iterations\n",
		res.W.At(0, 0), res.W.At(1, 0), res.Converged[0], res.Iterations[0])

	p := res.Predictor()
	f, _ := p.Predict(mat.NewDense(2, 2, []float64{1, 0, 0, 1}))
	fmt.Printf("f(1,0) = %.3f, f(0,1) = %.3f\n", f.At(0, 0), f.At(1, 0))
	// Output:
	// w = (2.000, -1.000), converged true in 2 iterations
	// f(1,0) = 2.000, f(0,1) = -1.000
}
