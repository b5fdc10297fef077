package greedy_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/measure"
)

// Greedy RLS finds, among 20 features, the two the label depends on. The
// selection criterion keeps improving a little with noise features — it chose
// them for that — so the honest estimate comes from an outer cross-validation
// of the whole selection.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, d = 60, 20
	x, y := mat.NewDense(m, d, nil), mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, 2*x.At(i, 3)-x.At(i, 7)+0.3*rng.NormFloat64())
	}
	mse, _ := measure.ByName("mse")
	res, err := greedy.Select(x, y, greedy.Options{Lambdas: []float64{0.1, 1, 10}, Bias: 1, K: 4, Measure: mse})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Paths[res.Best].Steps {
		fmt.Printf("feature %2d: LOO mse %.3f\n", s.Feature, s.Value)
	}
	fmt.Printf("best: λ = %g, k = %d, features %v\n", res.Lambda, res.K, res.Selected)
	p, _ := res.Predictor.Predict(x.Slice(0, 2, 0, d)) // full-width rows
	fmt.Printf("predictions %.2f %.2f, labels %.2f %.2f\n", p.At(0, 0), p.At(1, 0), y.At(0, 0), y.At(1, 0))

	outer, err := greedy.Outer(x, y, greedy.Options{Lambdas: []float64{0.1, 1, 10}, Bias: 1, K: 4, Measure: mse},
		[][]int{{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55}, {1, 6, 11, 16, 21, 26, 31, 36, 41, 46, 51, 56},
			{2, 7, 12, 17, 22, 27, 32, 37, 42, 47, 52, 57}, {3, 8, 13, 18, 23, 28, 33, 38, 43, 48, 53, 58},
			{4, 9, 14, 19, 24, 29, 34, 39, 44, 49, 54, 59}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("outer 5-fold mse %.3f\n", outer.Value)
	// Output:
	// feature  3: LOO mse 0.899
	// feature  7: LOO mse 0.098
	// feature  6: LOO mse 0.094
	// feature 11: LOO mse 0.090
	// best: λ = 0.1, k = 4, features [3 7 6 11]
	// predictions -3.97 1.10, labels -3.59 0.87
	// outer 5-fold mse 0.100
}
