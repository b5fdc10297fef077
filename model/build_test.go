package model

import (
	"math"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// A linear-kernel expansion over sparse points of huge width becomes sparse
// weights over the columns that hold values — O(nnz) memory — and predicts
// what the dense weights would.
func TestNewSparseLinearExpansion(t *testing.T) {
	const width = 5_000_000_000
	pts, err := matrix.NewCSR(2, width, []int{0, 1, 3}, []int{0, 7, width - 1}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	coef := mat.NewDense(2, 1, []float64{0.5, -1})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := New(Expansion{Learner: "rls", Kernel: kernel.Linear{Bias: 2}, Width: width, Outputs: []string{"y"}, Coef: coef, Points: pts})
	x, _ := matrix.NewCSR(1, width, []int{0, 3}, []int{0, 7, width - 1}, []float64{1, 1, 1})
	f, err := p.Predict(x)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// w = 0.5·x₀ − x₁: w_0 = 0.5, w_7 = −2, w_last = −3; b = 2·(0.5 − 1) = −1
	if want := 0.5 - 2 - 3 - 1; math.Abs(f.At(0, 0)-want) > 1e-12 {
		t.Errorf("f = %v, want %v", f.At(0, 0), want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes for a width of %d", grew, width)
	}
}
