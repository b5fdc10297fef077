package main

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/kernel"
	_ "github.com/rlskit/rlskit/learners" // every learner of the module registers itself
)

// greedyBasis is --basis-select greedy: n basis vectors chosen by the
// randomized greedy selection (Pahikkala, Suominen & Boberg 2012,
// Algorithm 1) anew for each kernel setting.
func greedyBasis(y *mat.Dense, n int, lambda float64, seed uint64) func(x mat.Matrix, k kernel.Kernel) ([]int, error) {
	return func(x mat.Matrix, k kernel.Kernel) ([]int, error) {
		b, err := basis.Greedy(x, y, k, n, basis.GreedyOptions{Lambda: lambda, Seed: seed})
		if err != nil {
			return nil, fmt.Errorf("--basis-select greedy: %w", err)
		}
		slices.Sort(b)
		return b, nil
	}
}
