package selection_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
)

// Select trains once and cross-validates every λ of the grid with the exact
// leave-one-out shortcut.
func ExampleSelect() {
	// 40 points of a noisy sine (seeded, so the output is reproducible).
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(40, 1, nil)
	y := mat.NewDense(40, 1, nil)
	for i := 0; i < 40; i++ {
		v := 6*rng.Float64() - 3
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(v)+0.4*(rng.Float64()-0.5))
	}
	r, err := rls.Fit(x, y, rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		log.Fatal(err)
	}
	grid, err := selection.ParseGrid("2^-8..2^2", true)
	if err != nil {
		log.Fatal(err)
	}
	mse, err := measure.ByName("mse")
	if err != nil {
		log.Fatal(err)
	}
	res, err := selection.Select(r, grid, selection.Scheme{Kind: selection.LOO, Name: "loo"}, mse, selection.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Curve {
		fmt.Printf("λ = %-10g LOO MSE %.4f\n", p.Lambda, p.Value)
	}
	fmt.Printf("best λ = %g\n", res.Best.Lambda)
	// Output:
	// λ = 0.00390625 LOO MSE 0.0134
	// λ = 0.0078125  LOO MSE 0.0129
	// λ = 0.015625   LOO MSE 0.0124
	// λ = 0.03125    LOO MSE 0.0123
	// λ = 0.0625     LOO MSE 0.0126
	// λ = 0.125      LOO MSE 0.0132
	// λ = 0.25       LOO MSE 0.0143
	// λ = 0.5        LOO MSE 0.0166
	// λ = 1          LOO MSE 0.0221
	// λ = 2          LOO MSE 0.0358
	// λ = 4          LOO MSE 0.0665
	// best λ = 0.03125
}

// PermutationTest learns the real labels and P permutations of them as the
// outputs of one model and cross-validates all of them in the same pass. A
// label the features predict beats every permutation; pure noise does not.
func ExamplePermutationTest() {
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(40, 1, nil)
	signal := mat.NewDense(40, 1, nil)
	noise := mat.NewDense(40, 1, nil)
	for i := 0; i < 40; i++ {
		v := 6*rng.Float64() - 3
		x.Set(i, 0, v)
		signal.Set(i, 0, math.Sin(v)+0.4*(rng.Float64()-0.5))
		noise.Set(i, 0, rng.Float64())
	}
	grid, err := selection.ParseGrid("2^-8..2^2", true)
	if err != nil {
		log.Fatal(err)
	}
	mse, err := measure.ByName("mse")
	if err != nil {
		log.Fatal(err)
	}
	loo := selection.Scheme{Kind: selection.LOO, Name: "loo"}
	for _, lab := range []struct {
		name string
		y    *mat.Dense
	}{{"sine", signal}, {"noise", noise}} {
		// the learner's factorization is reused for the m×(P+1) permuted labels
		r, err := rls.Fit(x, lab.y, rls.Options{Kernel: kernel.Gaussian{Gamma: 0.5}})
		if err != nil {
			log.Fatal(err)
		}
		res, err := selection.PermutationTest(r, grid, loo, mse, 99, 1, selection.Options{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-5s: LOO MSE %.3f, permutations %.3f ± %.3f, p = %.2f\n",
			lab.name, res.Real, res.NullMean, res.NullSD, res.PValue)
	}
	// Output:
	// sine : LOO MSE 0.015, permutations 0.549 ± 0.037, p = 0.01
	// noise: LOO MSE 0.103, permutations 0.095 ± 0.008, p = 0.80
}

// Search is the whole model selection in one call: here the gaussian width γ
// and λ by exact leave-one-out, on standardized features — one
// eigendecomposition per γ, every λ and every held-out row after it nearly free
// — and the chosen model predicts new rows (scaling them itself).
func ExampleSearch() {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := mat.NewDense(60, 2, nil), mat.NewDense(60, 1, nil)
	for i := 0; i < 60; i++ {
		a, b := 10*rng.Float64(), 1000*rng.Float64() // features on very different scales
		x.SetRow(i, []float64{a, b})
		y.Set(i, 0, math.Sin(a)+b/1000+0.05*rng.NormFloat64())
	}
	gammas, _ := selection.ParseGrid("2^-6..2^1", true)
	var specs []kernel.Spec
	for _, g := range gammas {
		specs = append(specs, kernel.Spec{Name: "gaussian", Gamma: g})
	}
	mse, _ := measure.ByName("mse")
	res, err := selection.Search(selection.Problem{
		X:           x,
		Standardize: true,
		Method: func(x mat.Matrix, k kernel.Kernel) (learn.Learner, error) {
			return rls.Fit(x, y, rls.Options{Kernel: k})
		},
	}, selection.Settings{Kernels: specs, Lambdas: selection.DefaultGrid(), Measure: mse,
		Scheme: selection.Scheme{Kind: selection.LOO, Name: "loo"}})
	if err != nil {
		log.Fatal(err)
	}
	f, err := res.Predictor.Predict(mat.NewDense(1, 2, []float64{1.5, 500}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("γ = %g, λ = %g, LOO MSE %.4f; f(1.5, 500) = %.2f (truth %.2f)\n",
		res.Kernel.Gamma, res.Lambda, res.Value, f.At(0, 0), math.Sin(1.5)+0.5)
	// Output:
	// γ = 0.5, λ = 0.0009765625, LOO MSE 0.0049; f(1.5, 500) = 1.56 (truth 1.50)
}
