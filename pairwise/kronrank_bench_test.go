package pairwise

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// tutorialRank draws data of the size of RLScore's drug–target tutorials
// (68 drugs × 442 targets, their kernel rows as features: d = 68, e = 442).
func tutorialRank() (x1, x2, y *mat.Dense) {
	rng := rand.New(rand.NewPCG(1, 68))
	draw := func(r, c int) *mat.Dense {
		out := mat.NewDense(r, c, nil)
		raw := out.RawMatrix().Data
		for i := range raw {
			raw[i] = rng.NormFloat64()
		}
		return out
	}
	return draw(68, 68), draw(442, 442), draw(68, 442)
}

// BenchmarkKronRankTutorialLinear times the linear form, fit and one λ —
// what RLScore's solve_linear_conditional_ranking does, timed by
// testdata/bench_rlscore_kronrank.py at the same size.
func BenchmarkKronRankTutorialLinear(b *testing.B) {
	x1, x2, y := tutorialRank()
	b.ReportAllocs()
	for b.Loop() {
		l, err := FitKronRankLinear(x1, x2, y)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Solve(1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKronRankTutorialDual times the dual form with linear kernels at
// the same size: both kernel matrices, the row eigendecomposition, C G C's,
// and one λ.
func BenchmarkKronRankTutorialDual(b *testing.B) {
	x1, x2, y := tutorialRank()
	m, q := y.Dims()
	pairs := make([]Pair, 0, m*q)
	ys := make([]float64, 0, m*q)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs, ys = append(pairs, Pair{i, j}), append(ys, y.At(i, j))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		rows, _ := NewSide(x1, kernel.Linear{}, false)
		cols, _ := NewSide(x2, kernel.Linear{}, false)
		k, err := FitKronRank(rows, cols, pairs, ys)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := k.Solve(1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKronRankTutorialLOO times leave-one-row-out over 8 λ on a
// trained dual model (the search's per-kernel-setting CV).
func BenchmarkKronRankTutorialLOO(b *testing.B) {
	x1, x2, y := tutorialRank()
	m, q := y.Dims()
	pairs := make([]Pair, 0, m*q)
	ys := make([]float64, 0, m*q)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs, ys = append(pairs, Pair{i, j}), append(ys, y.At(i, j))
		}
	}
	rows, _ := NewSide(x1, kernel.Linear{}, false)
	cols, _ := NewSide(x2, kernel.Linear{}, false)
	k, err := FitKronRank(rows, cols, pairs, ys)
	if err != nil {
		b.Fatal(err)
	}
	grid := []float64{1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4}
	b.ReportAllocs()
	for b.Loop() {
		if err := k.CrossValidate(Design{Setting: Rows}, grid, func(int, *mat.Dense) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
