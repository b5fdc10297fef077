package stream

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

// benchChunk is a parsed chunk of m svmlight-like rows of d features.
func benchChunk(m, d int, seed uint64) *dataset.Data {
	rng := rand.New(rand.NewPCG(seed, 1))
	indptr := []int{0}
	var idx []int
	var val []float64
	y := make([]float64, m)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			v := rng.NormFloat64()
			idx, val = append(idx, j), append(val, v)
			y[i] += v / float64(j+1)
		}
		indptr = append(indptr, len(idx))
	}
	return &dataset.Data{X: &matrix.CSR{R: m, C: d, Indptr: indptr, Indices: idx, Values: val}, Y: mat.NewDense(m, 1, y)}
}

// BenchmarkStatsPass: the statistics pass's work per row once parsed —
// fold hash, densify, shift, blocks of 32 by syrk, double-double sums — for
// 50 features (p = 51 with the bias) and 10 folds, one goroutine. Reported
// per row (ns/op is per chunk of 2048 rows).
func BenchmarkStatsPass(b *testing.B) {
	mse, _ := measure.ByName("mse")
	p, err := NewPlan(Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:10", Lambdas: selection.DefaultGrid(), Measure: mse})
	if err != nil {
		b.Fatal(err)
	}
	chunk := benchChunk(2048, 50, 1)
	if err := p.SetPilot(Rows(chunk)); err != nil {
		b.Fatal(err)
	}
	a, err := p.NewAccumulator()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.AddChunk(chunk); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*2048)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFoldSolve: from the merged statistics, the K = 10 training sets'
// eigendecompositions and the whole grid of 31 λ with the squared error of
// every fold from its statistics (p = 51): what follows the one pass.
func BenchmarkFoldSolve(b *testing.B) {
	mse, _ := measure.ByName("mse")
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:10", Lambdas: selection.DefaultGrid(), Measure: mse}
	p, _ := NewPlan(opt)
	chunk := benchChunk(2048, 50, 1)
	p.SetPilot(Rows(chunk))
	a, _ := p.NewAccumulator()
	for i := 0; i < 20; i++ {
		a.AddChunk(benchChunk(2048, 50, uint64(i+2)))
	}
	enc, _ := a.MarshalBinary()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q, _ := NewPlan(opt)
		q.SetPilot(Rows(chunk))
		acc, err := q.NewAccumulator()
		if err != nil {
			b.Fatal(err)
		}
		if err := acc.UnmarshalBinary(enc); err != nil {
			b.Fatal(err)
		}
		if err := q.Finish(acc, nil); err != nil {
			b.Fatal(err)
		}
	}
}
