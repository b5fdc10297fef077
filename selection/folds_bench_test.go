package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rls"
)

// BenchmarkFoldKinds is Select's cross-validation of rls (gaussian kernel,
// m = 1000 rows, three classes as the label, 31 λ) under each fold kind,
// along the one-pass path and per λ, after training (not timed): the
// stratified and group folds cost what kfold:5 costs, the repeated k-fold
// R times as much (one pass per repetition), with the same allocations per
// pass.
func BenchmarkFoldKinds(b *testing.B) {
	const m = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(m, 5, nil)
	y := mat.NewDense(m, 1, nil)
	groups := make([]int, m)
	for i := 0; i < m; i++ {
		for j := 0; j < 5; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, math.Max(0, math.Min(2, math.Round(1+x.At(i, 0)+0.3*rng.NormFloat64()))))
		groups[i] = rng.IntN(40)
	}
	l, err := rls.Fit(x, y, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.1}})
	if err != nil {
		b.Fatal(err)
	}
	grid := DefaultGrid()
	mse := mustMeasureBench(b, "mse")
	for _, spec := range []string{"kfold:5", "stratified-kfold:5", "group-kfold:5", "repeated-kfold:5x3"} {
		sc, err := NewScheme(spec, SchemeOptions{Rows: m, Seed: 1, Labels: y, Groups: groups})
		if err != nil {
			b.Fatal(err)
		}
		for _, route := range []struct {
			name string
			l    learn.Learner
		}{{"path", l}, {"perλ", perLambda{l}}} {
			b.Run(spec+"/"+route.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Select(route.l, grid, sc, mse, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
