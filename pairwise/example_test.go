package pairwise_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/selection"
)

// dyadic returns a small drug–target-like problem: 6 row objects with 2
// features, 5 column objects with 3, and a label for every pair.
func dyadic() (*pairwise.Side, *pairwise.Side, []pairwise.Pair, []float64) {
	rx, cx, pairs, y := dyadicObjects()
	rows, _ := pairwise.NewSide(rx, kernel.Gaussian{Gamma: 1}, false)
	cols, _ := pairwise.NewSide(cx, kernel.Gaussian{Gamma: 0.5}, false)
	return rows, cols, pairs, y
}

// dyadicObjects returns dyadic's objects, pairs and labels.
func dyadicObjects() (rx, cx *mat.Dense, pairs []pairwise.Pair, y []float64) {
	rx = mat.NewDense(6, 2, nil)
	cx = mat.NewDense(5, 3, nil)
	for i := 0; i < 6; i++ {
		rx.Set(i, 0, math.Sin(float64(i)))
		rx.Set(i, 1, math.Cos(float64(2*i)))
	}
	for j := 0; j < 5; j++ {
		for d := 0; d < 3; d++ {
			cx.Set(j, d, math.Sin(float64(j+3*d)))
		}
	}
	for i := 0; i < 6; i++ {
		for j := 0; j < 5; j++ {
			pairs = append(pairs, pairwise.Pair{Row: i, Col: j})
			y = append(y, rx.At(i, 0)*cx.At(j, 0)+0.5*rx.At(i, 1))
		}
	}
	return rx, cx, pairs, y
}

// Through the learner contract: the registered method trains Kronecker RLS
// for a kernel setting (one eigendecomposition per side), CrossValidateDesign
// hands the CV predictions of the labelled pairs for new row objects
// (setting B) at every λ, and the one tie rule scores them — the perturbed
// twin's predictions give the tolerance within which predictions are ties,
// and each pair's row object is its query for the per-row c-index.
func ExampleKronRLS_CrossValidateDesign() {
	rx, cx, pairs, y := dyadicObjects()
	in := &learn.Input{X: rx, Cols: cx, Y: mat.NewDense(len(y), 1, y)}
	rowOf := make([]int, len(pairs))
	for n, p := range pairs {
		in.Pairs = append(in.Pairs, learn.ObjectPair{Row: p.Row, Col: p.Col})
		rowOf[n] = p.Row
	}
	d, _ := learn.Lookup("kronrls")
	method, err := d.New(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := method(learn.Setting{Kernel: kernel.Gaussian{Gamma: 1}, ColKernel: kernel.Gaussian{Gamma: 0.5}})
	if err != nil {
		fmt.Println(err)
		return
	}
	twin, _ := l.(learn.Perturber).Perturbed(selection.TwinScale)
	design := learn.Design{Setting: "rows"}
	lambdas := []float64{0.01, 1}
	var preds []*mat.Dense
	_ = l.(learn.DesignValidator).CrossValidateDesign(design, lambdas, nil, func(i, _ int, p *mat.Dense) error {
		preds = append(preds, mat.DenseCopyOf(p)) // p is valid during the call only
		return nil
	})
	cindexRow, _ := measure.ByName("cindex-row")
	_ = twin.(learn.DesignValidator).CrossValidateDesign(design, lambdas, nil, func(i, _ int, p2 *mat.Dense) error {
		tol := selection.NoiseTolerance(preds[i], p2)
		v, _, err := selection.ScoreWithin(cindexRow, in.Y, preds[i], rowOf, tol)
		if err != nil {
			return err
		}
		fmt.Printf("λ %-4g per-row c-index %.3f\n", lambdas[i], v)
		return nil
	})
	// Output:
	// λ 0.01 per-row c-index 0.980
	// λ 1    per-row c-index 0.900
}

// dyadicInput is dyadic's objects, pairs and labels as the input of the
// registered learners of pairs.
func dyadicInput() *learn.Input {
	rx, cx, pairs, y := dyadicObjects()
	in := &learn.Input{X: rx, Cols: cx, Y: mat.NewDense(len(y), 1, y)}
	for _, p := range pairs {
		in.Pairs = append(in.Pairs, learn.ObjectPair{Row: p.Row, Col: p.Col})
	}
	return in
}

// Kronecker RLS on complete data through the one search (selection.Search
// with the registered learner): the four settings' estimates, each from one
// factorization of each side, the setting the scheme.
func ExampleKronRLS_search() {
	d, _ := learn.Lookup("kronrls")
	mse, _ := measure.ByName("mse")
	for _, s := range []string{"pairs", "rows", "cols", "both"} {
		sc, err := selection.NewScheme(s, selection.SchemeOptions{RowObjects: 6, ColObjects: 5})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := selection.Search(selection.Problem{Learner: d, Input: dyadicInput()}, selection.Settings{
			Kernels:    []kernel.Spec{{Name: "gaussian", Gamma: 1}},
			ColKernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.5}},
			Lambdas:    []float64{0.01, 0.1, 1},
			Scheme:     sc,
			Measure:    mse,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-5s best λ %-4g mse %.4f\n", s, res.Lambda, res.Value)
	}
	// Output:
	// pairs best λ 0.01 mse 0.0096
	// rows  best λ 0.01 mse 0.0582
	// cols  best λ 0.1  mse 0.0907
	// both  best λ 0.01 mse 0.1362
}

// Two-step RLS searches the row and column λ jointly; here for new row and
// column objects together (setting D) with folds of each side.
func ExampleTwoStep_search() {
	d, _ := learn.Lookup("twostep")
	mse, _ := measure.ByName("mse")
	rowFolds, colFolds := [][]int{{0, 1, 2}, {3, 4, 5}}, [][]int{{0, 2, 4}, {1, 3}}
	sc, err := selection.NewScheme("both", selection.SchemeOptions{RowObjects: 6, ColObjects: 5, Folds: rowFolds, ColFolds: colFolds})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := selection.Search(selection.Problem{Learner: d, Input: dyadicInput()}, selection.Settings{
		Kernels:    []kernel.Spec{{Name: "gaussian", Gamma: 1}},
		ColKernels: []kernel.Spec{{Name: "gaussian", Gamma: 0.5}},
		Lambdas:    []float64{0.01, 1},
		ColLambdas: []float64{0.01, 1},
		Scheme:     sc,
		Measure:    mse,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("both:folds(%d×%d): λ_r %g, λ_c %g, mse %.3f over %d points\n",
		len(rowFolds), len(colFolds), res.Lambda, res.ColLambda, res.Value, len(res.Curves[0].Curve))
	// Output:
	// both:folds(2×2): λ_r 0.01, λ_c 0.01, mse 0.301 over 4 points
}

// A model predicts pairs of its training objects, or of new ones through the
// kernel between new and training objects.
func ExampleKronSolution_Coefficients() {
	rows, cols, pairs, y := dyadic()
	k, _ := pairwise.FitKron(rows, cols, pairs, y, pairwise.Options{})
	s, _ := k.Solve(0.01)
	a := s.Coefficients() // f(u, v) = k(u)ᵀ A g(v)
	newRow := mat.NewDense(1, 2, []float64{0.5, -0.2})
	newCol := mat.NewDense(1, 3, []float64{0.1, 0.7, -0.3})
	ku, _ := rows.Block(newRow)
	gv, _ := cols.Block(newCol)
	var ka, f mat.Dense
	ka.Mul(ku, a)
	f.Mul(&ka, gv.T())
	fmt.Printf("f(new drug, new target) = %.3f (truth %.3f)\n", f.At(0, 0), 0.5*0.1+0.5*(-0.2))
	// Output:
	// f(new drug, new target) = -0.085 (truth -0.050)
}
