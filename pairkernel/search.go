package pairkernel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// WeightScore is one weight vector of SearchWeights with its
// cross-validation predictions (one per training pair, from the model that
// did not see it) and their mean squared error.
type WeightScore struct {
	Weights     []float64
	Predictions []float64
	MSE         float64
}

// SearchWeights chooses the weights of the sum kernel Σ_i w_i (k_i ⊗ g_i)
// (base as Sum.Base builds it over the training objects) from grid by
// k-fold cross-validation over the labelled pairs: for each weight vector
// and each fold (a list of pair indices; the folds must partition 0..n−1),
// the model is refitted by Fit on the other pairs and predicts the fold's.
// For a fixed weight vector the kernel is fixed, but with conjugate
// gradients there is no closed-form hold-out, so these refits are the
// validation: exact up to each fit's tolerance (Options.Tol; a held-out
// prediction is within ‖C‖₂‖r‖/λ of the exact refit's). A single fold is
// validation on a held-out pair set. The best point is the first with the
// lowest mean squared error (grid order breaks ties). Cost: len(grid) ×
// len(folds) fits. Returns every point's scores and the best's index.
func SearchWeights(base []*mat.Dense, grid [][]float64, train Pairs, y []float64, folds [][]int, lambda float64, opt Options) ([]WeightScore, int, error) {
	n := train.Len()
	if len(y) != n {
		return nil, 0, fmt.Errorf("%w: %d labels for %d pairs", ErrShape, len(y), n)
	}
	if len(grid) == 0 {
		return nil, 0, fmt.Errorf("pairkernel: an empty weight grid")
	}
	seen := make([]bool, n)
	count := 0
	for f, fold := range folds {
		if len(fold) == 0 || len(fold) == n {
			return nil, 0, fmt.Errorf("%w: fold %d holds %d of %d pairs: each fold must leave pairs to train on and hold one out", ErrShape, f+1, len(fold), n)
		}
		for _, p := range fold {
			if p < 0 || p >= n || seen[p] {
				return nil, 0, fmt.Errorf("%w: fold %d: pair %d is outside 0..%d or in two folds", ErrShape, f+1, p, n-1)
			}
			seen[p] = true
			count++
		}
	}
	if count != n && len(folds) > 1 {
		return nil, 0, fmt.Errorf("%w: the %d folds cover %d of %d pairs", ErrShape, len(folds), count, n)
	}
	scores := make([]WeightScore, len(grid))
	best := -1
	for g, w := range grid {
		terms, err := Sum.Terms(w)
		if err != nil {
			return nil, 0, fmt.Errorf("pairkernel: weight grid point %d: %w", g+1, err)
		}
		if 2*len(w) != len(base) {
			return nil, 0, fmt.Errorf("%w: weight grid point %d has %d weights for %d pairs of row and column kernels", ErrShape, g+1, len(w), len(base)/2)
		}
		pred := make([]float64, n)
		for i := range pred {
			pred[i] = math.NaN()
		}
		held := 0
		for f, fold := range folds {
			out := make([]bool, n)
			for _, p := range fold {
				out[p] = true
			}
			var sub Pairs
			var ys []float64
			for p := range n {
				if !out[p] {
					sub.Rows, sub.Cols = append(sub.Rows, train.Rows[p]), append(sub.Cols, train.Cols[p])
					ys = append(ys, y[p])
				}
			}
			m, err := Fit(base, terms, sub, ys, lambda, opt)
			if err != nil {
				return nil, 0, fmt.Errorf("pairkernel: weights %v, fold %d: %w", w, f+1, err)
			}
			test := Pairs{Rows: make([]int, len(fold)), Cols: make([]int, len(fold))}
			for i, p := range fold {
				test.Rows[i], test.Cols[i] = train.Rows[p], train.Cols[p]
			}
			f, err := m.Predict(base, test)
			if err != nil {
				return nil, 0, err
			}
			for i, p := range fold {
				pred[p] = f[i]
			}
			held += len(fold)
		}
		s := 0.0
		for p, v := range pred {
			if !math.IsNaN(v) {
				s += (v - y[p]) * (v - y[p])
			}
		}
		scores[g] = WeightScore{Weights: w, Predictions: pred, MSE: s / float64(held)}
		if best < 0 || scores[g].MSE < scores[best].MSE {
			best = g
		}
	}
	return scores, best, nil
}

// PairFolds splits n pairs into k folds of (nearly) equal size at random
// (seeded): pairs, not objects, are held out, so a held-out pair's objects
// are usually in other training pairs (the "setting A" of pairwise
// learning).
func PairFolds(n, k int, seed uint64) ([][]int, error) {
	if k < 2 || k > n {
		return nil, fmt.Errorf("%w: %d folds of %d pairs", ErrShape, k, n)
	}
	perm := rand.New(rand.NewPCG(seed, 0x9a17)).Perm(n)
	folds := make([][]int, k)
	for i, p := range perm {
		folds[i%k] = append(folds[i%k], p)
	}
	return folds, nil
}
