package mmc

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// tutorialBlobs is the data of RLScore's own MMC test
// (rlscore/test/test_learner/test_mmc.py): three 2-D Gaussian blobs of 400
// points, centres (10,10), (10,20), (20,15), standard deviation 2.
func tutorialBlobs() *mat.Dense {
	rng := rand.New(rand.NewPCG(100, 0))
	centres := [][2]float64{{10, 10}, {10, 20}, {20, 15}}
	x := mat.NewDense(1200, 2, nil)
	for c, ctr := range centres {
		for i := 0; i < 400; i++ {
			x.Set(c*400+i, 0, ctr[0]+2*rng.NormFloat64())
			x.Set(c*400+i, 1, ctr[1]+2*rng.NormFloat64())
		}
	}
	return x
}

// benchFit is what RLScore's SteepestDescentMMC constructor times: the
// kernel matrix and its factorization, then one search from a random
// balanced start (Fit, then Solve).
func benchFit(b *testing.B, o learn.Options, lambda float64) {
	x := tutorialBlobs()
	b.ReportAllocs()
	for b.Loop() {
		l, err := Fit(x, o, Options{Clusters: 3, Seed: 100})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Solve(lambda); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTutorialBasis is RLScore's test setting: Gaussian kernel
// γ = 2⁻²⁰, λ = 2⁻³⁰, 100 basis vectors drawn from the first blob, 3
// clusters, m = 1200 (docs/performance.md compares it with RLScore).
func BenchmarkTutorialBasis(b *testing.B) {
	rng := rand.New(rand.NewPCG(100, 1))
	basis := rng.Perm(400)[:100]
	benchFit(b, learn.Options{Kernel: kernel.Gaussian{Gamma: 0x1p-20}, Form: learn.Sparse, Basis: basis}, 0x1p-30)
}

// BenchmarkTutorialFull is the same data with the full kernel matrix
// (γ = 0.02, λ = 1): the dual form, R by Cholesky (KernelR).
func BenchmarkTutorialFull(b *testing.B) {
	benchFit(b, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.02}, Form: learn.Dual}, 1)
}

// BenchmarkSearch times the steps of the full-kernel fit apart: R by
// Cholesky (KernelR) against R from the eigendecomposition (factor.Build's
// dual factor, then FactorR), and the search alone from a stored R.
func BenchmarkSearch(b *testing.B) {
	x := tutorialBlobs()
	k := kernel.Gaussian{Gamma: 0.02}
	km, err := k.Block(x, x)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("R=cholesky", func(b *testing.B) {
		for b.Loop() {
			if _, err := KernelR(km, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("R=eig", func(b *testing.B) {
		for b.Loop() {
			d, err := factor.Build(x, k, factor.Request{Form: factor.Dual})
			if err != nil {
				b.Fatal(err)
			}
			FactorR(d.Factor, Gains(d.E, 1))
		}
	})
	r, err := KernelR(km, 1)
	if err != nil {
		b.Fatal(err)
	}
	opt, err := Options{Clusters: 3, Lambda: 1, Seed: 100}.Normalize(1200)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			search(nil, nil, r, opt)
		}
	})
}

// BenchmarkTutorialInteractive is RLScore's interactive classifier test
// setting (the same blobs, γ = 2⁻²⁰, λ = 2⁻³⁰, 100 basis vectors, 2
// classes): the factor, then claiming 300 rows into class 1 and a descent
// over all rows (testdata/time_rlscore_interactive.py times RLScore).
func BenchmarkTutorialInteractive(b *testing.B) {
	rng := rand.New(rand.NewPCG(100, 1))
	basis := rng.Perm(400)[:100]
	x := tutorialBlobs()
	steps := []learn.Step{{Op: "claim", N: 300, Class: 1}, {Op: "descend"}}
	b.ReportAllocs()
	for b.Loop() {
		l, err := Fit(x, learn.Options{Kernel: kernel.Gaussian{Gamma: 0x1p-20}, Form: learn.Sparse, Basis: basis}, Options{Clusters: 2})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.WithSteps(steps).Solve(0x1p-30); err != nil {
			b.Fatal(err)
		}
	}
}
