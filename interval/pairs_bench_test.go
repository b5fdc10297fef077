package interval_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/interval"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
)

// pairBench is a complete m×q gaussian dyadic problem (rows 5 features,
// columns 4) and the row and column objects' arrays.
func pairBench(b *testing.B, m, q int) (*mat.Dense, *mat.Dense, []pairwise.Pair, []float64) {
	rng := rand.New(rand.NewPCG(9, 9))
	xr, xc := mat.NewDense(m, 5, nil), mat.NewDense(q, 4, nil)
	for _, x := range []*mat.Dense{xr, xc} {
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	var pairs []pairwise.Pair
	var y []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs = append(pairs, pairwise.Pair{Row: i, Col: j})
			y = append(y, math.Sin(xr.At(i, 0)+xc.At(j, 1))+0.3*rng.NormFloat64())
		}
	}
	return xr, xc, pairs, y
}

func foldsOf(n, k int) [][]int {
	f := make([][]int, k)
	for i := 0; i < n; i++ {
		f[i%k] = append(f[i%k], i)
	}
	return f
}

func pairSolution(b *testing.B, learner string, xr, xc *mat.Dense, pairs []pairwise.Pair, y []float64) (learn.Solution, *model.PairPredictor) {
	kern := kernel.Gaussian{Gamma: 0.2}
	rs, err := pairwise.NewSide(xr, kern, false)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := pairwise.NewSide(xc, kern, false)
	if err != nil {
		b.Fatal(err)
	}
	if learner == "kronrls" {
		k, err := pairwise.FitKron(rs, cs, pairs, y, pairwise.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := k.Solve(1)
		if err != nil {
			b.Fatal(err)
		}
		return s, s.PairModel()
	}
	k, err := pairwise.FitTwoStep(rs, cs, pairs, y, pairwise.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := k.Solve(1, 1)
	if err != nil {
		b.Fatal(err)
	}
	return s, s.PairModel()
}

// BenchmarkPairCVPlus: the hold-out models and residuals of pairwise CV+ at
// m = q = 200 (gaussian, complete data) — setting rows with 5 row folds,
// cols with 5 column folds, both with 5 × 5 — by the shortcut (interval.NewPairs after the
// fit), and by refitting each fold model as a tool without it must: the
// learner fitted from scratch on the kept objects (its two
// eigendecompositions and coefficients).
func BenchmarkPairCVPlus(b *testing.B) {
	const m, q, k = 200, 200, 5
	xr, xc, pairs, y := pairBench(b, m, q)
	for _, learner := range []string{"kronrls", "twostep"} {
		sol, _ := pairSolution(b, learner, xr, xc, pairs, y)
		for _, setting := range []string{model.PairSettingRows, model.PairSettingCols, model.PairSettingBoth} {
			rf, cf := foldsOf(m, k), foldsOf(q, k)
			switch setting {
			case model.PairSettingRows:
				cf = nil
			case model.PairSettingCols:
				rf = nil
			}
			b.Run(learner+"/"+setting+"/shortcut", func(b *testing.B) {
				for b.Loop() {
					if _, err := interval.NewPairs(sol, setting, rf, cf); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(learner+"/"+setting+"/refit", func(b *testing.B) {
				for b.Loop() {
					rowFolds, colFolds := rf, cf
					if rowFolds == nil {
						rowFolds = [][]int{nil}
					}
					if colFolds == nil {
						colFolds = [][]int{nil}
					}
					for _, f := range rowFolds {
						for _, g := range colFolds {
							keepR, keepC := keep(f, m), keep(g, q)
							var kp []pairwise.Pair
							var ky []float64
							for a, i := range keepR {
								for c, j := range keepC {
									kp = append(kp, pairwise.Pair{Row: a, Col: c})
									ky = append(ky, y[i*q+j])
								}
							}
							s, _ := pairSolution(b, learner, rowsOf(xr, keepR), rowsOf(xc, keepC), kp, ky)
							if pm, ok := s.(interface{ PairModel() *model.PairPredictor }); ok {
								_ = pm.PairModel()
							}
						}
					}
				}
			})
		}
	}
}

// BenchmarkPairPredictInterval: CV+ intervals of 1000 pairs (100 rows × 10
// columns: new rows with training columns for setting rows, training rows
// with new columns for cols, new with new for both) after the m = q = 200
// fits of BenchmarkPairCVPlus.
func BenchmarkPairPredictInterval(b *testing.B) {
	const m, q, k = 200, 200, 5
	xr, xc, pairs, y := pairBench(b, m, q)
	nr, nc, _, _ := pairBench(b, 100, 10)
	var rows, cols []int
	for r := 0; r < 100; r++ {
		for c := 0; c < 10; c++ {
			rows, cols = append(rows, r), append(cols, c)
		}
	}
	for _, learner := range []string{"kronrls", "twostep"} {
		sol, pm := pairSolution(b, learner, xr, xc, pairs, y)
		for _, setting := range []string{model.PairSettingRows, model.PairSettingCols, model.PairSettingBoth} {
			rf, cf := foldsOf(m, k), foldsOf(q, k)
			var rowX, colX mat.Matrix = nr, nc
			switch setting {
			case model.PairSettingRows:
				cf, colX = nil, nil
			case model.PairSettingCols:
				rf, rowX = nil, nil
			}
			iv, err := interval.NewPairs(sol, setting, rf, cf)
			if err != nil {
				b.Fatal(err)
			}
			pm.Interval = iv
			b.Run(learner+"/"+setting, func(b *testing.B) {
				for b.Loop() {
					if _, _, _, err := pm.PredictInterval(rowX, colX, rows, cols, 0.9); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func keep(f []int, n int) []int {
	drop := make([]bool, n)
	for _, i := range f {
		drop[i] = true
	}
	var out []int
	for i := 0; i < n; i++ {
		if !drop[i] {
			out = append(out, i)
		}
	}
	return out
}

func rowsOf(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for a, i := range idx {
		copy(out.RawRowView(a), x.RawRowView(i))
	}
	return out
}
