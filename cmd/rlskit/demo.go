package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

//go:embed data/diabetes.csv
var diabetesCSV []byte

func newDemo(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Fit gaussian RLS on the embedded diabetes data, λ and the kernel width by exact leave-one-out",
		Long: `demo splits the embedded diabetes data (442 patients, 10 features; Efron et al. 2004)
into 342 training and 100 test rows, standardizes the features, trains gaussian
kernel RLS once per kernel width (gamma 2^-12..2^-2), selects λ from 2^-10..2^10 and
the width by exact leave-one-out, and reports the LOO curves and the error on the
held-out test rows.`,
		Example: `  rlskit demo
  RLSKIT_LAPACK=gonum rlskit demo    # the same on the pure-Go fallback`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runDemo(e) },
	}
}

func runDemo(e *env) error {
	start := time.Now()
	d, err := dataset.ReadCSV(bytes.NewReader(diabetesCSV), "diabetes.csv", dataset.CSVOptions{Labels: []string{"progression"}})
	if err != nil {
		return err
	}
	m, width := d.X.Dims()
	perm := rand.New(rand.NewPCG(2004, 1)).Perm(m)
	train, test := perm[:m-100], perm[m-100:]
	xTrain, yTrain := kernel.Rows(d.X, train), kernel.Rows(d.Y, train).(*mat.Dense)
	xTest, yTest := kernel.Rows(d.X, test), kernel.Rows(d.Y, test).(*mat.Dense)
	// one eigendecomposition per kernel width; every λ and every LOO prediction after it is exact and cheap
	mse, _ := measure.ByName("mse")
	grid, _ := selection.ParseGrid("2^-10..2^10", true)
	gammas, _ := selection.ParseGrid("2^-12..2^-2", true)
	var specs []kernel.Spec
	for _, g := range gammas {
		specs = append(specs, kernel.Spec{Name: "gaussian", Gamma: g})
	}
	learner, err := learn.Lookup(string(learn.RLS))
	if err != nil {
		return err
	}
	res, err := selection.Search(selection.Problem{
		Learner: learner, Input: &learn.Input{X: xTrain, Y: yTrain, Outputs: d.LabelNames}, Standardize: true,
	}, selection.Settings{Kernels: specs, Lambdas: grid, Scheme: selection.Scheme{Kind: selection.LOO, Name: "loo"}, Measure: mse})
	if err != nil {
		return err
	}
	trained := time.Since(start)
	pred, err := res.Predictor.Predict(xTest) // the predictor standardizes the test rows itself
	if err != nil {
		return err
	}
	testMSE, err := mse.Score(yTest, pred, nil)
	if err != nil {
		return err
	}
	base := mat.NewDense(len(test), 1, nil)
	base.Apply(func(_, _ int, _ float64) float64 { return mat.Sum(yTrain) / float64(len(train)) }, base)
	baseMSE, _ := mse.Score(yTest, base, nil)

	w := newLineWriter(e.stdout)
	w.printf("rlskit demo: diabetes progression (Efron et al. 2004), %d features\n", width)
	w.printf("gaussian RLS on standardized features; %d training rows, %d test rows\n\n", len(train), len(test))
	w.printf("exact leave-one-out over %d λ for each of %d kernel widths (one eigendecomposition each, %.0f ms in all):\n", len(grid), len(gammas), trained.Seconds()*1000)
	w.printf("  %10s  %10s  %12s\n", "gamma", "best λ", "LOO MSE")
	for _, c := range res.Curves {
		w.printf("  %10s  %10s  %12.1f\n", lambdaLabel(c.Kernel.Gamma), lambdaLabel(c.Best.Lambda), c.Best.Value)
	}
	best := res.Curves[res.Best]
	gamma := res.Kernel.Gamma
	w.printf("\nLOO curve at gamma = %s:\n", lambdaLabel(gamma))
	w.printf("  %10s  %12s\n", "lambda", "LOO MSE")
	for n, pt := range best.Curve {
		mark := ""
		if n == best.BestIndex {
			mark = "  <- best"
		}
		w.printf("  %10s  %12.1f%s\n", lambdaLabel(pt.Lambda), pt.Value, mark)
	}
	w.printf("\nchosen gamma = %s, λ = %s: LOO MSE %.1f (RMSE %.1f)\n", lambdaLabel(gamma), lambdaLabel(res.Lambda), res.Value, math.Sqrt(res.Value))
	for _, edge := range res.OnEdge {
		w.printf("note: the chosen %s is at the %s end of its grid\n", edge.Parameter, edge.Side)
	}
	w.printf("held-out test MSE %.1f (RMSE %.1f); predicting the training mean gives MSE %.1f\n", testMSE, math.Sqrt(testMSE), baseMSE)
	w.printf("total %.0f ms\n", time.Since(start).Seconds()*1000)
	return w.flush()
}

// lambdaLabel writes powers of two as 2^k.
func lambdaLabel(l float64) string {
	if fr, exp := math.Frexp(l); fr == 0.5 {
		return fmt.Sprintf("2^%d", exp-1)
	}
	return fmt.Sprintf("%g", l)
}
