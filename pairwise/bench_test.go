package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// benchProblem draws m row and q column objects (10 features each), the
// gaussian kernel on both sides, and labels for every pair (complete) or for
// n random pairs.
func benchProblem(b *testing.B, m, q, n int) (*Side, *Side, []Pair, []float64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(uint64(m), uint64(q)))
	obj := func(k int) *mat.Dense {
		x := mat.NewDense(k, 10, nil)
		for i := 0; i < k; i++ {
			for j := 0; j < 10; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		return x
	}
	rs, err := NewSide(obj(m), kernel.Gaussian{Gamma: 0.05}, false)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := NewSide(obj(q), kernel.Gaussian{Gamma: 0.05}, false)
	if err != nil {
		b.Fatal(err)
	}
	var pairs []Pair
	var y []float64
	if n == 0 {
		for i := 0; i < m; i++ {
			for j := 0; j < q; j++ {
				pairs = append(pairs, Pair{i, j})
				y = append(y, math.Sin(float64(i))*math.Cos(float64(j))+0.1*rng.NormFloat64())
			}
		}
		return rs, cs, pairs, y
	}
	seen := map[Pair]bool{}
	for len(pairs) < n {
		p := Pair{rng.IntN(m), rng.IntN(q)}
		if seen[p] {
			continue
		}
		seen[p] = true
		pairs = append(pairs, p)
		y = append(y, math.Sin(float64(p.Row))*math.Cos(float64(p.Col))+0.1*rng.NormFloat64())
	}
	return rs, cs, pairs, y
}

// grid20 is 20 λ values 2^-10 … 2^9.
func grid20() []float64 {
	g := make([]float64, 20)
	for i := range g {
		g[i] = math.Ldexp(1, i-10)
	}
	return g
}

// BenchmarkKronFit is the training of Kronecker RLS on complete data: the two
// eigendecompositions (O(m³ + q³)) and UᵀYV.
func BenchmarkKronFit(b *testing.B) {
	for _, sh := range [][2]int{{150, 500}, {300, 1000}} {
		b.Run(fmt.Sprintf("m=%d,q=%d", sh[0], sh[1]), func(b *testing.B) {
			rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
			b.ResetTimer()
			for b.Loop() {
				r2, _ := NewSide(rs.x, rs.kern, false)
				c2, _ := NewSide(cs.x, cs.kern, false)
				if _, err := FitKron(r2, c2, pairs, y, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKronSettingA is setting A (leave each pair out) over 20 λ after
// training, each λ's CV predictions scored (designCurve): O(m·q·(m + q)) per
// λ.
func BenchmarkKronSettingA(b *testing.B) {
	for _, sh := range [][2]int{{150, 500}, {300, 1000}} {
		b.Run(fmt.Sprintf("m=%d,q=%d", sh[0], sh[1]), func(b *testing.B) {
			rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
			k, err := FitKron(rs, cs, pairs, y, Options{})
			if err != nil {
				b.Fatal(err)
			}
			mse, _ := measure.ByName("mse")
			b.ResetTimer()
			for b.Loop() {
				if _, err := designCurve(k, learn.Design{Setting: "pairs"}, grid20(), nil, mse); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKronSettingAEndToEnd is what `rlskit fit --learner kronrls --cv
// pairs` does after reading its files, as scripts/peers.sh's Kronecker row
// runs it: both sides' kernel matrices from the objects (O((m² + q²)·d)),
// both eigendecompositions (O(m³ + q³)), UᵀYV (O(m·q·(m + q))) and setting
// A over 20 λ (4·m·q·(m + q) flops per λ), each λ's predictions scored by
// MSE. The flop rate reported counts the λ path only.
func BenchmarkKronSettingAEndToEnd(b *testing.B) {
	for _, sh := range [][2]int{{150, 500}, {300, 1000}} {
		b.Run(fmt.Sprintf("m=%d,q=%d", sh[0], sh[1]), func(b *testing.B) {
			rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
			mse, _ := measure.ByName("mse")
			flops := 20 * 4 * float64(sh[0]*sh[1]*(sh[0]+sh[1]))
			for b.Loop() {
				r2, err := NewSide(rs.x, rs.kern, false)
				if err != nil {
					b.Fatal(err)
				}
				c2, err := NewSide(cs.x, cs.kern, false)
				if err != nil {
					b.Fatal(err)
				}
				k, err := FitKron(r2, c2, pairs, y, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := designCurve(k, learn.Design{Setting: "pairs"}, grid20(), nil, mse); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "path-Gflop/s")
		})
	}
}

// BenchmarkKronPairsPath is setting A alone over 20 λ after training, no
// scoring: the path CrossValidate takes (three m×q buffers for the whole
// grid) against Solve and LeaveOneOutMatrix at each λ (seven m×q matrices
// allocated per λ). Both do 4·m·q·(m + q) flops per λ in four gemm calls.
func BenchmarkKronPairsPath(b *testing.B) {
	for _, sh := range [][2]int{{100, 300}, {150, 500}, {300, 1000}} {
		rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
		k, err := FitKron(rs, cs, pairs, y, Options{})
		if err != nil {
			b.Fatal(err)
		}
		flops := 20 * 4 * float64(sh[0]*sh[1]*(sh[0]+sh[1]))
		b.Run(fmt.Sprintf("path/m=%d,q=%d", sh[0], sh[1]), func(b *testing.B) {
			for b.Loop() {
				if err := k.CrossValidate(Design{Setting: Pairs}, grid20(), func(int, *mat.Dense) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gflop/s")
		})
		b.Run(fmt.Sprintf("per-λ/m=%d,q=%d", sh[0], sh[1]), func(b *testing.B) {
			for b.Loop() {
				for _, lambda := range grid20() {
					s, err := k.Solve(lambda)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.LeaveOneOutMatrix(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gflop/s")
		})
	}
}

// BenchmarkKronSettings is settings B, C (leave-one-object-out and 5 folds)
// and D (both sides leave-one-out: one eigendecomposition per fold of the
// side eigendecomposed) over 5 λ on smaller grids.
func BenchmarkKronSettings(b *testing.B) {
	for _, sh := range [][2]int{{50, 100}, {100, 200}} {
		rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
		k, err := FitKron(rs, cs, pairs, y, Options{})
		if err != nil {
			b.Fatal(err)
		}
		mse, _ := measure.ByName("mse")
		rf := randFolds(rand.New(rand.NewPCG(1, 2)), sh[0], 5)
		cf := randFolds(rand.New(rand.NewPCG(3, 4)), sh[1], 5)
		for _, d := range []Design{{Setting: Rows}, {Setting: Cols}, {Setting: Rows, RowFolds: rf}, {Setting: Both}, {Setting: Both, RowFolds: rf, ColFolds: cf}} {
			b.Run(fmt.Sprintf("m=%d,q=%d/%s", sh[0], sh[1], d), func(b *testing.B) {
				for b.Loop() {
					if _, err := designCurve(k, d.Learn(), grid20()[5:10], nil, mse); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTwoStep is two-step RLS settings A–D over a 4 × 5 grid of
// (λ_r, λ_c) after training.
func BenchmarkTwoStep(b *testing.B) {
	for _, sh := range [][2]int{{150, 500}, {300, 1000}} {
		rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
		t, err := FitTwoStep(rs, cs, pairs, y, Options{})
		if err != nil {
			b.Fatal(err)
		}
		mse, _ := measure.ByName("mse")
		for _, s := range []Setting{Pairs, Rows, Cols, Both} {
			b.Run(fmt.Sprintf("m=%d,q=%d/%s", sh[0], sh[1], s), func(b *testing.B) {
				for b.Loop() {
					if _, err := designCurve(t, Design{Setting: s}.Learn(), grid20()[4:8], grid20()[6:11], mse); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkKronCG is one conjugate-gradient iteration (the sampled vec-trick
// product plus the vector updates) on n observed pairs: O(n·(m + q) + m·q).
func BenchmarkKronCG(b *testing.B) {
	for _, sh := range [][3]int{{1000, 1000, 100000}, {2000, 2000, 100000}, {1000, 1000, 200000}} {
		b.Run(fmt.Sprintf("m=%d,q=%d,n=%d", sh[0], sh[1], sh[2]), func(b *testing.B) {
			rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], sh[2])
			k, err := FitKronCG(rs, cs, pairs, y, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := k.Solve(1, CGOptions{MaxIter: 10, Tol: 1e-300}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/11/1e6, "ms/iter")
		})
	}
}

// BenchmarkKronRetrainPair is what setting D costs without a shortcut, per
// pair: Kronecker RLS retrained on the other rows and columns (two
// eigendecompositions) and solved at 5 λ; setting D by retraining is m·q of
// these, against one LeaveBothOut (BenchmarkKronSettings/…/both).
func BenchmarkKronRetrainPair(b *testing.B) {
	for _, sh := range [][2]int{{50, 100}, {100, 200}} {
		b.Run(fmt.Sprintf("m=%d,q=%d", sh[0], sh[1]), func(b *testing.B) {
			rs, cs, pairs, y := benchProblem(b, sh[0], sh[1], 0)
			u, v := 3, 7
			var tp []Pair
			var ty []float64
			for i, p := range pairs {
				if p.Row != u && p.Col != v {
					tp = append(tp, Pair{p.Row - b2i(p.Row > u), p.Col - b2i(p.Col > v)})
					ty = append(ty, y[i])
				}
			}
			rx := rowsOf(rs.x.(*mat.Dense), cv.Complement([]int{u}, sh[0]))
			cx := rowsOf(cs.x.(*mat.Dense), cv.Complement([]int{v}, sh[1]))
			for b.Loop() {
				r2, _ := NewSide(rx, rs.kern, false)
				c2, _ := NewSide(cx, cs.kern, false)
				k, err := FitKron(r2, c2, tp, ty, Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, l := range grid20()[5:10] {
					s, _ := k.Solve(l)
					s.Coefficients()
				}
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
