package factor

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// maxAbs is the fold of math.Max over |K_ij| that checkSymmetric's scale
// was: the same value (NaN for NaN) on matrices of random magnitudes with
// NaN, ±Inf and −0 entries placed anywhere, alone and together, in every
// order — including an infinity before and after a NaN, where the fold
// gives +Inf either way.
func TestMaxAbsIsTheMaxFold(t *testing.T) {
	fold := func(k *mat.Dense) float64 {
		m, _ := k.Dims()
		s := 0.0
		for i := 0; i < m; i++ {
			for _, v := range k.RawRowView(i) {
				s = math.Max(s, math.Abs(v))
			}
		}
		return s
	}
	rng := rand.New(rand.NewPCG(26, 7))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	cases := 0
	for n := 1; n <= 6; n++ {
		for trial := 0; trial < 300; trial++ {
			k := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					k.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(41)-20)))
				}
			}
			for range rng.IntN(4) {
				k.Set(rng.IntN(n), rng.IntN(n), specials[rng.IntN(len(specials))])
			}
			got, want := maxAbs(k), fold(k)
			if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && math.Float64bits(got) != math.Float64bits(want)) {
				t.Fatalf("%v: maxAbs %v, the math.Max fold %v", mat.Formatted(k), got, want)
			}
			cases++
		}
	}
	// the orders that tell an order-dependent fold apart
	for _, v := range [][]float64{
		{math.NaN(), math.Inf(1)}, {math.Inf(1), math.NaN()}, {math.NaN(), math.Inf(-1)},
		{math.Inf(-1), math.NaN()}, {math.NaN(), 1}, {1, math.NaN()}, {math.Copysign(0, -1), 0},
	} {
		k := mat.NewDense(1, 2, v)
		got, want := maxAbs(k), fold(k)
		if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && got != want) {
			t.Errorf("%v: maxAbs %v, the math.Max fold %v", v, got, want)
		}
	}
	t.Logf("%d random matrices", cases)
}
