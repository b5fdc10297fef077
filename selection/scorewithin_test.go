package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/measure"
)

// TestScoreWithinLeavesInputs: ScoreWithin scores y and p in place when every
// row is covered, so it must leave both untouched — for every measure, with
// and without tolerances, with and without uncovered (NaN) rows — and its
// value must equal the measure applied directly to the covered rows (snapped
// by hand for an ordinal measure with a tolerance).
func TestScoreWithinLeavesInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	const m, outs = 40, 2
	for _, name := range measure.Names() {
		meas, err := measure.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, withNaN := range []bool{false, true} {
			for _, tol := range [][]float64{nil, {0, 0}, {0.05, 0}} {
				y, p := mat.NewDense(m, outs, nil), mat.NewDense(m, outs, nil)
				q := make([]int, m)
				for i := range m {
					q[i] = i % 4
					for j := range outs {
						lab := float64(rng.IntN(3))
						if name == "auc" || name == "accuracy" {
							lab = float64(2*rng.IntN(2) - 1)
						}
						if name == "multiclass-accuracy" {
							lab = 0
							if j == i%outs {
								lab = 1
							}
						}
						y.Set(i, j, lab)
						// Rounded to 0.01 so that some predictions tie exactly
						// and some lie within the 0.05 tolerance.
						p.Set(i, j, math.Round(100*rng.NormFloat64())/100)
					}
				}
				if withNaN {
					p.Set(3, 0, math.NaN())
					p.Set(3, 1, math.NaN())
				}
				y0, p0 := mat.DenseCopyOf(y), mat.DenseCopyOf(p)
				got, _, err := ScoreWithin(meas, y, p, q, tol)
				if !mat.Equal(y, y0) || !equalNaN(p, p0) {
					t.Fatalf("%s, tol %v, NaN rows %v: ScoreWithin modified its inputs", name, tol, withNaN)
				}
				// The oracle: the covered rows copied, snapped by hand.
				var rows []int
				for i := range m {
					if !math.IsNaN(p.At(i, 0)) {
						rows = append(rows, i)
					}
				}
				ys, ps := mat.NewDense(len(rows), outs, nil), mat.NewDense(len(rows), outs, nil)
				var qs []int
				for k, i := range rows {
					ys.SetRow(k, y.RawRowView(i))
					ps.SetRow(k, p.RawRowView(i))
					qs = append(qs, q[i])
				}
				if meas.Ordinal && tol != nil {
					for j := range outs {
						if tol[j] > 0 {
							ps.SetCol(j, snapByHand(mat.Col(nil, j, ps), tol[j]))
						}
					}
				}
				want, werr := meas.Score(ys, ps, qs)
				if (err == nil) != (werr == nil) || (err == nil && got != want) {
					t.Fatalf("%s, tol %v, NaN rows %v: %v (%v), want %v (%v)", name, tol, withNaN, got, err, want, werr)
				}
			}
		}
	}
}

func equalNaN(a, b *mat.Dense) bool {
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			x, y := a.At(i, j), b.At(i, j)
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				return false
			}
		}
	}
	return true
}

// snapByHand replaces each run of values, in sorted order, whose consecutive
// gaps are at most tol by the run's smallest value — the tie rule written out
// without the package's snap: an O(n²) pass over the sorted values.
func snapByHand(x []float64, tol float64) []float64 {
	n := len(x)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for i := 1; i < n; i++ {
		for k := i; k > 0 && x[order[k]] < x[order[k-1]]; k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	out := make([]float64, n)
	start := 0
	for k := range n {
		if k > 0 && x[order[k]]-x[order[k-1]] > tol {
			start = k
		}
		out[order[k]] = x[order[start]]
	}
	return out
}
