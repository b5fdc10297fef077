package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/pairwise"
)

// twoStepRetrain trains two-step RLS from scratch on the complete labels of
// the row objects tr × the column objects tc — A = (K + λI)⁻¹ Y (G + λ_c I)⁻¹
// by two dense LU solves on the kernel values of internal/oracle — and
// predicts f(u, v) = k(u)ᵀ A g(v) for every pair of the rows te × the
// columns tv (te-major).
func twoStepRetrain(rx, cx *mat.Dense, rk, ck oracle.Kernel, y *mat.Dense, tr, tc, te, tv []int, lambda, colLambda float64) []float64 {
	k := rk.Gram(rx, tr, tr)
	for i := range tr {
		k.Set(i, i, k.At(i, i)+lambda)
	}
	g := ck.Gram(cx, tc, tc)
	for j := range tc {
		g.Set(j, j, g.At(j, j)+colLambda)
	}
	ysub := mat.NewDense(len(tr), len(tc), nil)
	for a, i := range tr {
		for b, j := range tc {
			ysub.Set(a, b, y.At(i, j))
		}
	}
	var w mat.Dense // (K + λI)⁻¹ Y
	if err := w.Solve(k, ysub); err != nil {
		panic(err)
	}
	var at mat.Dense // ((G + λ_c I)⁻¹ Wᵀ) = Aᵀ, G symmetric
	if err := at.Solve(g, w.T()); err != nil {
		panic(err)
	}
	var f1, f mat.Dense
	f1.Mul(rk.Gram(rx, te, tr), at.T())
	f.Mul(&f1, ck.Gram(cx, tc, tv))
	return f.RawMatrix().Data
}

// NestedDesign of two-step RLS equals brute-force nested retraining — per
// outer block, per inner fold of its training part, per row kernel and
// (λ, λ_c), two-step RLS solved from scratch on the objects left — to 1e-8
// relative: inner curves, choices, outer values, pooled value and the
// nested-CV interval, in setting B (rows: 3 outer × 4 inner row folds) and
// D (both: 3 × 3 outer blocks, 3 × 3 inner blocks each), 12 × 9 complete
// pairs, 2 row γ × 1 column γ × 4 λ × 3 λ_c.
func TestNestedDesignTwoStepEqualsRetraining(t *testing.T) {
	const m, q = 12, 9
	rng := rand.New(rand.NewPCG(22, 9))
	rx, cx := mat.NewDense(m, 2, nil), mat.NewDense(q, 2, nil)
	for i := 0; i < m; i++ {
		rx.Set(i, 0, rng.NormFloat64())
		rx.Set(i, 1, rng.NormFloat64())
	}
	for j := 0; j < q; j++ {
		cx.Set(j, 0, rng.NormFloat64())
		cx.Set(j, 1, rng.NormFloat64())
	}
	y := mat.NewDense(m, q, nil)
	var pairs []learn.ObjectPair
	var yv []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			v := math.Sin(rx.At(i, 0)+cx.At(j, 1)) + 0.3*rng.NormFloat64()
			y.Set(i, j, v)
			pairs, yv = append(pairs, learn.ObjectPair{Row: i, Col: j}), append(yv, v)
		}
	}
	rowSpecs := []kernel.Spec{{Name: "gaussian", Gamma: 0.3}, {Name: "gaussian", Gamma: 2}}
	colSpecs := []kernel.Spec{{Name: "gaussian", Gamma: 0.5}}
	lambdas, colLambdas := []float64{0.01, 0.1, 1, 10}, []float64{0.1, 1, 10}
	mse, _ := measure.ByName("mse")
	d := pairwise.TwoStepDescriptor()
	all := func(n int, out []int) []int {
		o := map[int]bool{}
		for _, i := range out {
			o[i] = true
		}
		var r []int
		for i := 0; i < n; i++ {
			if !o[i] {
				r = append(r, i)
			}
		}
		return r
	}
	for _, setting := range []string{"rows", "both"} {
		t.Run(setting, func(t *testing.T) {
			outer := learn.Design{Setting: setting}
			inner := learn.Design{Setting: setting}
			outer.RowFolds, _ = cv.KFold(m, 3, 1)
			inner.RowFolds, _ = cv.KFold(m, 4, 2)
			if setting == "both" {
				inner.RowFolds, _ = cv.KFold(m, 3, 2)
				outer.ColFolds, _ = cv.KFold(q, 3, 5)
				inner.ColFolds, _ = cv.KFold(q, 3, 6)
			}
			got, err := NestedDesign(Problem{Learner: &d, Input: &learn.Input{X: rx, Cols: cx, Pairs: pairs, Y: mat.NewDense(len(yv), 1, yv)}},
				Settings{Kernels: rowSpecs, ColKernels: colSpecs, Lambdas: lambdas, ColLambdas: colLambdas, Measure: mse,
					Scheme: Scheme{Kind: Objects, Name: setting, Design: inner}}, outer, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			// the outer blocks, in NestedDesign's order (row fold major)
			type block struct{ r, c []int }
			var blocks []block
			for _, r := range outer.RowFolds {
				if setting == "rows" {
					blocks = append(blocks, block{r, nil})
					continue
				}
				for _, c := range outer.ColFolds {
					blocks = append(blocks, block{r, c})
				}
			}
			if len(got.Folds) != len(blocks) {
				t.Fatalf("%d outer folds, want %d", len(got.Folds), len(blocks))
			}
			ck := oracle.Kernel{Name: "gaussian", Gamma: colSpecs[0].Gamma}
			var sumSq float64
			var nOut int
			var eIn, eOut [][]float64
			var nInner []int // the number of inner folds of each outer block
			for b, bl := range blocks {
				trR, trC := all(m, bl.r), all(q, bl.c)
				inR := map[int]bool{}
				for _, i := range trR {
					inR[i] = true
				}
				inC := map[int]bool{}
				for _, j := range trC {
					inC[j] = true
				}
				restrict := func(f [][]int, in map[int]bool) [][]int {
					var out [][]int
					for _, g := range f {
						var h []int
						for _, i := range g {
							if in[i] {
								h = append(h, i)
							}
						}
						if len(h) > 0 {
							out = append(out, h)
						}
					}
					return out
				}
				ir := restrict(inner.RowFolds, inR)
				ic := [][]int{trC} // setting B: every column object is trained on and predicted
				if setting == "both" {
					ic = restrict(inner.ColFolds, inC)
				}
				nInner = append(nInner, len(ir)*len(ic))
				bestV, bestSpec, bestL, bestC := math.NaN(), -1, 0.0, 0.0
				var bestLoss []float64 // the inner losses at the chosen point
				for si, spec := range rowSpecs {
					rk := oracle.Kernel{Name: "gaussian", Gamma: spec.Gamma}
					curve := got.Folds[b].Curves[si].Curve
					n := 0
					sv, sl, sc := math.NaN(), 0.0, 0.0
					var sLoss []float64
					for _, lambda := range lambdas {
						for _, colLambda := range colLambdas {
							ss, cnt := 0.0, 0
							var loss []float64
							for _, r := range ir {
								for _, c := range ic {
									tr, tc := all(m, append(append([]int{}, bl.r...), r...)), trC
									if setting == "both" {
										tc = all(q, append(append([]int{}, bl.c...), c...))
									}
									f := twoStepRetrain(rx, cx, rk, ck, y, tr, tc, r, c, lambda, colLambda)
									for a, i := range r {
										for e, j := range c {
											dd := y.At(i, j) - f[a*len(c)+e]
											ss += dd * dd
											cnt++
											loss = append(loss, dd*dd)
										}
									}
								}
							}
							v := ss / float64(cnt)
							if pt := curve[n]; pt.Lambda != lambda || pt.ColLambda != colLambda || !relClose(pt.Value, v, 1e-8) {
								t.Fatalf("block %d, γ = %g, λ = %g, λ_c = %g: inner value %.17g (at %g, %g), retraining %.17g", b, spec.Gamma, lambda, colLambda, pt.Value, pt.Lambda, pt.ColLambda, v)
							}
							if math.IsNaN(sv) || v < sv || v == sv && lambda*colLambda > sl*sc {
								sv, sl, sc, sLoss = v, lambda, colLambda, loss
							}
							n++
						}
					}
					if bestSpec < 0 || sv < bestV {
						bestV, bestSpec, bestL, bestC, bestLoss = sv, si, sl, sc, sLoss
					}
				}
				g := got.Folds[b]
				if g.Kernel != rowSpecs[bestSpec] || g.Lambda != bestL || g.ColLambda != bestC || g.ColKernel == nil || *g.ColKernel != colSpecs[0] {
					t.Fatalf("block %d: chose %s λ = %g λ_c = %g, retraining %s λ = %g λ_c = %g", b, g.Kernel, g.Lambda, g.ColLambda, rowSpecs[bestSpec], bestL, bestC)
				}
				te, tv := bl.r, bl.c
				if setting == "rows" {
					tv = trC
				}
				f := twoStepRetrain(rx, cx, oracle.Kernel{Name: "gaussian", Gamma: rowSpecs[bestSpec].Gamma}, ck, y, trR, trC, te, tv, bestL, bestC)
				ss := 0.0
				var outLoss []float64
				for a, i := range te {
					for e, j := range tv {
						dd := y.At(i, j) - f[a*len(tv)+e]
						ss += dd * dd
						outLoss = append(outLoss, dd*dd)
					}
				}
				eIn, eOut = append(eIn, bestLoss), append(eOut, outLoss)
				if want := ss / float64(len(f)); !relClose(g.Outer, want, 1e-8) {
					t.Fatalf("block %d: outer value %.17g, retraining %.17g", b, g.Outer, want)
				}
				sumSq += ss
				nOut += len(f)
			}
			if want := sumSq / float64(nOut); !relClose(got.Value, want, 1e-8) || got.Method != IntervalNestedCV {
				t.Fatalf("pooled outer value %.17g (%s), retraining %.17g", got.Value, got.Method, want)
			}
			// the interval from the retrained losses (NestedCVInterval is checked against its formulas in TestNestedEqualsRetraining)
			// ρ from the pair counts: all pairs, the outer training parts, the inner training sets
			var so, si float64
			for b := range eOut {
				tsize := float64(len(eIn[b])) // every pair of T is predicted once by the inner CV
				so += tsize
				si += tsize - tsize/float64(nInner[b]) // the inner folds' mean size is |T| / their number
			}
			kk := float64(len(eOut))
			no, ni, nAll := so/kk, si/kk, float64(len(pairs))
			rho := math.Min(1, math.Max(0, (1/no-1/nAll)/(1/ni-1/no)))
			if b := NestedCVInterval(eIn, eOut, 0.9, rho); !relClose(got.SE, b.SE, 1e-8) || !relClose(got.Bias, b.Bias, 1e-8) ||
				!relClose(got.Interval[0], b.Interval[0], 1e-8) || !relClose(got.Interval[1], b.Interval[1], 1e-8) {
				t.Fatalf("SE %g bias %g interval %v, from the retrained losses SE %g bias %g %v", got.SE, got.Bias, got.Interval, b.SE, b.Bias, b.Interval)
			}
			t.Logf("%s: value %.6g interval [%.6g, %.6g] bias %.3g", setting, got.Value, got.Interval[0], got.Interval[1], got.Bias)
		})
	}
}

// Ties in NestedDesign are broken as selectDesign breaks them: labels all
// 0 score 0 at every point, so every outer fold chooses the largest λ·λ_c
// (λ = 10, λ_c = 2, visited neither first nor last) and the first row kernel.
func TestNestedDesignTies(t *testing.T) {
	const m, q = 8, 5
	rng := rand.New(rand.NewPCG(3, 4))
	rx, cx := mat.NewDense(m, 2, nil), mat.NewDense(q, 2, nil)
	for i := 0; i < m; i++ {
		rx.Set(i, 0, rng.NormFloat64())
		rx.Set(i, 1, rng.NormFloat64())
	}
	for j := 0; j < q; j++ {
		cx.Set(j, 0, rng.NormFloat64())
		cx.Set(j, 1, rng.NormFloat64())
	}
	var pairs []learn.ObjectPair
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			pairs = append(pairs, learn.ObjectPair{Row: i, Col: j})
		}
	}
	mse, _ := measure.ByName("mse")
	d := pairwise.TwoStepDescriptor()
	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.3}, {Name: "gaussian", Gamma: 2}}
	outer := learn.Design{Setting: "rows"}
	outer.RowFolds, _ = cv.KFold(m, 2, 1)
	got, err := NestedDesign(Problem{Learner: &d, Input: &learn.Input{X: rx, Cols: cx, Pairs: pairs, Y: mat.NewDense(len(pairs), 1, nil)}},
		Settings{Kernels: specs, ColKernels: []kernel.Spec{{Name: "gaussian", Gamma: 1}}, Lambdas: []float64{1, 10, 0.1}, ColLambdas: []float64{2, 1},
			Measure: mse, Scheme: Scheme{Kind: Objects, Name: "rows", Design: learn.Design{Setting: "rows"}}}, outer, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for n, f := range got.Folds {
		if f.Lambda != 10 || f.ColLambda != 2 || f.Kernel != specs[0] || f.Inner != 0 {
			t.Errorf("outer fold %d: chose %s λ = %g λ_c = %g (%g), want %s λ = 10 λ_c = 2", n, f.Kernel, f.Lambda, f.ColLambda, f.Inner, specs[0])
		}
	}
}
