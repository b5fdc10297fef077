package selection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/rank"
)

// noTwin hides a learner's learn.Perturber: Select then compares
// predictions exactly, without the tie rule's twin.
type noTwin struct{ learn.Learner }

// noTwinPath is noTwin for a FoldPathValidator, which it stays.
type noTwinPath struct{ learn.Learner }

func (n noTwinPath) HoldOutPath(folds [][]int, grid []float64, visit func(int, *mat.Dense) error) error {
	return n.Learner.(FoldPathValidator).HoldOutPath(folds, grid, visit)
}

// rankBenchData: m rows of 20 standard-normal features, graded labels 0…4
// from a smooth function, queries of 30 rows.
func rankBenchData(m int) (*mat.Dense, *mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(uint64(m), 13))
	x := mat.NewDense(m, 20, nil)
	y := mat.NewDense(m, 1, nil)
	q := make([]int, m)
	for i := 0; i < m; i++ {
		for j := 0; j < 20; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y.Set(i, 0, math.Max(0, math.Min(4, math.Round(2+math.Sin(x.At(i, 0))+x.At(i, 1)+0.5*rng.NormFloat64()))))
		q[i] = i / 30
	}
	return x, y, q
}

// BenchmarkSelectTwin is Select's cross-validation with and without the tie
// rule's twin (learn.Perturber) — the price of the forward-error estimate:
// globalrank leave-pair-out over every pair of ±1 labels at one λ, and
// queryrank leave-query-out (queries of 30 rows) over 31 λ, each after
// training (not timed).
func BenchmarkSelectTwin(b *testing.B) {
	cindex := mustMeasureBench(b, "cindex")
	for _, m := range []int{500, 1000} {
		x, y, _ := rankBenchData(m)
		for i := 0; i < m; i++ {
			y.Set(i, 0, math.Copysign(1, y.At(i, 0)-2))
		}
		g, err := rank.FitGlobal(x, y, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.05}})
		if err != nil {
			b.Fatal(err)
		}
		for _, tw := range []bool{true, false} {
			var l learn.Learner = g
			if !tw {
				l = noTwin{g}
			}
			b.Run(fmt.Sprintf("globalrank-lpo/m=%d/twin=%v", m, tw), func(b *testing.B) {
				for b.Loop() {
					if _, err := Select(l, []float64{1}, Scheme{Kind: LPO, Name: "lpo"}, cindex, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	for _, m := range []int{750, 1500, 3000} {
		if m > 1500 && !linalg.Fast() {
			continue
		}
		x, y, q := rankBenchData(m)
		qr, err := rank.FitQuery(x, y, q, learn.Options{Kernel: kernel.Gaussian{Gamma: 0.05}})
		if err != nil {
			b.Fatal(err)
		}
		folds, _ := cv.LeaveGroupOut(q)
		grid := DefaultGrid()
		for _, tw := range []bool{true, false} {
			var l learn.Learner = qr
			if !tw {
				l = noTwinPath{qr}
			}
			b.Run(fmt.Sprintf("queryrank-lqo/m=%d/twin=%v", m, tw), func(b *testing.B) {
				for b.Loop() {
					if _, err := Select(l, grid, Scheme{Kind: Folds, Name: "lqo", Folds: folds}, cindex, Options{Queries: q}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func mustMeasureBench(b *testing.B, name string) measure.Measure {
	b.Helper()
	m, err := mustMeasureB(name)
	if err != nil {
		b.Fatal(err)
	}
	return m
}
