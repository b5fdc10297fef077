package pairkernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// TestSearchWeightsEqualsRefits: every grid point's cross-validation
// predictions equal those of the explicit sum kernel matrix solved densely
// on each fold's training pairs (to 1e-6, the acceptance tolerance; each
// is within ‖C‖₂‖r‖/λ ≤ 1e-9 here), the mean squared errors follow, and the
// chosen point is the dense refits' best — for 3 folds and for one
// held-out validation set.
func TestSearchWeightsEqualsRefits(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 12))
	pr := newProblem(rng, Sum, 90, 8, 7, 1, 2, 2)
	// labels from the first pair of kernels plus noise, so that the grid's
	// errors differ
	y := make([]float64, pr.train.Len())
	first, err := NewOperator(pr.base(t, false), []Term{{Weight: 1, Row: 0, Col: 1}}, pr.train, pr.train)
	if err != nil {
		t.Fatal(err)
	}
	first.MulVec(y, randVec(rng, len(y)))
	for i := range y {
		y[i] += 0.1 * rng.NormFloat64()
	}
	grid := [][]float64{{0, 1, 0}, {0.5, 0.25, 0.25}, {1, 0, 0}, {0, 0, 1}, {0.2, 0.4, 0.4}}
	folds, err := PairFolds(pr.train.Len(), 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 0.3
	for _, fs := range [][][]int{folds, folds[:1]} {
		scores, best, err := SearchWeights(pr.base(t, false), grid, pr.train, y, fs, lambda, Options{})
		if err != nil {
			t.Fatal(err)
		}
		wantBest, wantMSE := -1, math.Inf(1)
		for g, w := range grid {
			pr.w = w
			pred := make([]float64, pr.train.Len())
			held := 0
			for _, fold := range fs {
				out := map[int]bool{}
				for _, p := range fold {
					out[p] = true
				}
				var sub, test Pairs
				var ys []float64
				for p := range pr.train.Len() {
					if out[p] {
						test.Rows, test.Cols = append(test.Rows, pr.train.Rows[p]), append(test.Cols, pr.train.Cols[p])
					} else {
						sub.Rows, sub.Cols = append(sub.Rows, pr.train.Rows[p]), append(sub.Cols, pr.train.Cols[p])
						ys = append(ys, y[p])
					}
				}
				alpha := denseSolve(t, pr.dense(sub, sub, false), ys, lambda)
				var f mat.VecDense
				f.MulVec(pr.dense(test, sub, false), mat.NewVecDense(len(alpha), alpha))
				i := 0
				for p := range pr.train.Len() {
					if out[p] {
						pred[p] = f.AtVec(i)
						i++
					}
				}
				held += len(fold)
			}
			mse := 0.0
			for _, fold := range fs {
				for _, p := range fold {
					if d := scores[g].Predictions[p] - pred[p]; !(math.Abs(d) <= 1e-6) {
						t.Fatalf("folds %d, weights %v: pair %d predicted %v, dense refit %v", len(fs), w, p, scores[g].Predictions[p], pred[p])
					}
					mse += (pred[p] - y[p]) * (pred[p] - y[p])
				}
			}
			mse /= float64(held)
			if math.Abs(mse-scores[g].MSE) > 1e-6 {
				t.Fatalf("folds %d, weights %v: MSE %v, dense refits %v", len(fs), w, scores[g].MSE, mse)
			}
			if mse < wantMSE {
				wantBest, wantMSE = g, mse
			}
		}
		if best != wantBest {
			t.Fatalf("folds %d: chose %v (MSE %v), dense refits choose %v (MSE %v)", len(fs), grid[best], scores[best].MSE, grid[wantBest], wantMSE)
		}
		for g := range grid {
			t.Logf("folds %d: weights %v: MSE %.6f", len(fs), grid[g], scores[g].MSE)
		}
	}
}

// TestSearchWeightsBadInput: bad folds and grids are errors.
func TestSearchWeightsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 13))
	pr := newProblem(rng, Sum, 12, 4, 4, 1, 2, 2)
	base, y := pr.base(t, false), randVec(rng, 12)
	w := [][]float64{{1, 1, 1}}
	for name, c := range map[string]struct {
		grid  [][]float64
		folds [][]int
	}{
		"empty grid":   {nil, [][]int{{0}}},
		"weights":      {[][]float64{{1, 1}}, [][]int{{0}}},
		"empty fold":   {w, [][]int{{}}},
		"all held":     {w, [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}},
		"range":        {w, [][]int{{12}}},
		"twice":        {w, [][]int{{0, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}}, // 12 entries, pair 11 in none
		"not covering": {w, [][]int{{0, 1}, {2, 3}}},
	} {
		if _, _, err := SearchWeights(base, c.grid, pr.train, y, c.folds, 1, Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := PairFolds(5, 6, 1); err == nil {
		t.Error("6 folds of 5 pairs: no error")
	}
}

// TestTrainSearch: TrainSearch's scores are SearchWeights' on the object
// kernels Train forms, its choice is the grid point of least error, and its
// model is Train's with that weight vector — coefficients to 1e-12 (the
// same conjugate gradients on the same kernels); a weight vector of the
// wrong length is refused naming its grid point.
func TestTrainSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 14))
	rows, cols := randPoints(rng, 9, 3), randPoints(rng, 7, 2)
	rs := []kernel.Spec{{Name: "gaussian", Gamma: 0.3}, {Name: "linear"}}
	cs := []kernel.Spec{{Name: "gaussian", Gamma: 0.5}, {Name: "gaussian", Gamma: 0.5}}
	train, y := randPairs(rng, 50, 9, 7), randVec(rng, 50)
	grid := [][]float64{{1, 0}, {0.5, 0.5}, {0, 1}, {0.9, 0.1}}
	folds, err := PairFolds(50, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 0.4
	p, scores, best, err := TrainSearch(grid, rs, cs, rows, cols, train, y, folds, lambda, Options{})
	if err != nil {
		t.Fatal(err)
	}
	probe := &Predictor{Kind: Sum, Weights: grid[0], RowSpecs: rs, ColSpecs: cs, Rows: rows, Cols: cols}
	base, err := probe.base(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, wantBest, err := SearchWeights(base, grid, train, y, folds, lambda, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if best != wantBest {
		t.Fatalf("best grid point %d, SearchWeights says %d", best, wantBest)
	}
	for g := range grid {
		if scores[g].MSE != want[g].MSE {
			t.Errorf("grid point %d: error %v, SearchWeights %v", g, scores[g].MSE, want[g].MSE)
		}
		if scores[g].MSE < scores[best].MSE {
			t.Errorf("grid point %d has less error (%v) than the chosen %d (%v)", g, scores[g].MSE, best, scores[best].MSE)
		}
	}
	direct, err := Train(Sum, grid[best], rs, cs, rows, cols, train, y, lambda, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Weights, grid[best]) {
		t.Errorf("model weights %v, want %v", p.Weights, grid[best])
	}
	for i, a := range direct.Model.Coef {
		if d := math.Abs(p.Model.Coef[i] - a); d > 1e-12*(1+math.Abs(a)) {
			t.Fatalf("coefficient %d: %v, Train's %v", i, p.Model.Coef[i], a)
		}
	}
	if _, _, _, err := TrainSearch([][]float64{{1, 0}, {1, 0, 0}}, rs, cs, rows, cols, train, y, folds, lambda, Options{}); err == nil || !strings.Contains(err.Error(), "grid point 2") {
		t.Errorf("a weight vector of 3 for 2 terms: %v", err)
	}
}
