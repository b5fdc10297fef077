package selection

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
)

// The twin repeats one hold-out in twinStride (twinFolds, twinPairs): the
// forward error it measures on that sample must be the error over all the
// hold-outs to within a small factor, or ties that the full twin finds would
// be missed. On well-posed data (rls leave-one-out and 5-fold along the λ
// path, queryrank leave-query-out, globalrank leave-pair-out over every
// positive–negative pair; linear and gaussian kernels; λ from 10⁻⁴ to 10³)
// the sampled tolerance lies in [full/4, full] at every λ — the smallest
// ratio measured is logged — while the twin cross-validates at most
// ⌈K/twinStride⌉ of K folds and, for leave-pair-out, at most 1/32 of the
// pairs on at most an eighth of the rows.
func TestTwinSampleMeasuresTheNoise(t *testing.T) {
	const m = 240
	x, y, q := rankBenchData(m)
	grid := []float64{1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1e3}
	worst := 1.0
	check := func(name string, n int, full, sampled []float64) {
		t.Helper()
		for c := range full {
			r := sampled[c] / full[c]
			worst = math.Min(worst, r)
			if !(r >= 0.25 && r <= 1) {
				t.Errorf("%s λ = %g: sampled tolerance %.3g, over all hold-outs %.3g (ratio %.3g, want in [1/4, 1])", name, grid[n], sampled[c], full[c], r)
			}
		}
	}
	all := make([]bool, m)
	for i := range all {
		all[i] = true
	}
	path := func(name string, l learn.Learner, folds [][]int) {
		tw, err := l.(learn.Perturber).Perturbed(noiseScale)
		if err != nil {
			t.Fatal(err)
		}
		tf := twinFolds(folds)
		if want := (len(folds) + twinStride - 1) / twinStride; len(tf) != want {
			t.Errorf("%s: the twin cross-validates %d of %d folds, want %d", name, len(tf), len(folds), want)
		}
		sampled := make([]bool, m)
		for _, f := range tf {
			for _, i := range f {
				sampled[i] = true
			}
		}
		var ps, full []*mat.Dense
		keep := func(dst *[]*mat.Dense) func(int, *mat.Dense) error {
			return func(_ int, p *mat.Dense) error { *dst = append(*dst, mat.DenseCopyOf(p)); return nil }
		}
		if err := l.(FoldPathValidator).HoldOutPath(folds, grid, keep(&ps)); err != nil {
			t.Fatal(err)
		}
		if err := tw.(FoldPathValidator).HoldOutPath(folds, grid, keep(&full)); err != nil {
			t.Fatal(err)
		}
		n := 0
		err = tw.(FoldPathValidator).HoldOutPath(tf, grid, func(_ int, p2 *mat.Dense) error {
			check(name, n, noiseTolerance(ps[n], full[n], all), noiseTolerance(ps[n], p2, sampled))
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	loo := make([][]int, m)
	for i := range loo {
		loo[i] = []int{i}
	}
	lqo, _ := cv.LeaveGroupOut(q)
	for _, k := range []kernel.Kernel{kernel.Linear{Bias: 1}, kernel.Gaussian{Gamma: 0.05}} {
		r, err := rls.Fit(x, y, learn.Options{Kernel: k})
		if err != nil {
			t.Fatal(err)
		}
		path(fmt.Sprintf("rls %v loo", k), r, loo)
		path(fmt.Sprintf("rls %v 5-fold", k), r, fiveFolds(m))
		qr, err := rank.FitQuery(x, y, q, learn.Options{Kernel: k})
		if err != nil {
			t.Fatal(err)
		}
		path(fmt.Sprintf("queryrank %v lqo", k), qr, lqo)

		// globalrank leave-pair-out over every positive–negative pair
		yb := mat.NewDense(m, 1, nil)
		for i := 0; i < m; i++ {
			yb.Set(i, 0, math.Copysign(1, y.At(i, 0)-2))
		}
		g, err := rank.FitGlobal(x, yb, learn.Options{Kernel: k})
		if err != nil {
			t.Fatal(err)
		}
		tw, _ := g.Perturbed(noiseScale)
		auc := mustMeasure(t, "auc")
		pairs := DefaultPairs(mat.Col(nil, 0, yb), auc)
		idx := twinPairs(pairs)
		rows := map[int]bool{}
		for _, n := range idx {
			rows[pairs[n].I], rows[pairs[n].J] = true, true
		}
		if len(idx) > len(pairs)/32 || len(rows) > m/8+2 {
			t.Errorf("globalrank lpo: the twin holds out %d of %d pairs on %d of %d rows", len(idx), len(pairs), len(rows), m)
		}
		sub := make([]learn.Pair, len(idx))
		for k, n := range idx {
			sub[k] = pairs[n]
		}
		for n, lambda := range grid {
			s, err := g.At(lambda)
			if err != nil {
				t.Fatal(err)
			}
			s2, err := tw.At(lambda)
			if err != nil {
				t.Fatal(err)
			}
			a, b, _ := s.(learn.PairHoldOuter).LeavePairOut(pairs)
			fa, fb, _ := s2.(learn.PairHoldOuter).LeavePairOut(pairs)
			sa, sb, _ := s2.(learn.PairHoldOuter).LeavePairOut(sub)
			full, sampled := 0.0, 0.0
			for k := range pairs {
				full = math.Max(full, math.Max(math.Abs(fa.At(k, 0)/noiseScale-a.At(k, 0)), math.Abs(fb.At(k, 0)/noiseScale-b.At(k, 0))))
			}
			for k, p := range idx {
				sampled = math.Max(sampled, math.Max(math.Abs(sa.At(k, 0)/noiseScale-a.At(p, 0)), math.Abs(sb.At(k, 0)/noiseScale-b.At(p, 0))))
			}
			check(fmt.Sprintf("globalrank %v lpo", k), n, []float64{full}, []float64{sampled})
		}
	}
	t.Logf("smallest ratio of the sampled to the full tolerance: %.3g", worst)
}
