package stream_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/stream"
)

// Linear ridge regression on two svmlight shards with 4-fold cross-validation
// over three λ, from one pass over the rows: the squared error of every fold
// and λ comes from the folds' statistics.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "stream-example")
	defer os.RemoveAll(dir)
	var a, b strings.Builder
	for i := 0; i < 200; i++ {
		x1, x2 := float64(i%17)/4, float64(i%5)
		line := fmt.Sprintf("%g 1:%g 2:%g\n", 2*x1-x2+0.01*float64(i%3), x1, x2)
		if i < 120 {
			a.WriteString(line)
		} else {
			b.WriteString(line)
		}
	}
	os.WriteFile(filepath.Join(dir, "part-0.svm"), []byte(a.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "part-1.svm"), []byte(b.String()), 0o644)

	files, _ := filepath.Glob(filepath.Join(dir, "part-*.svm"))
	mse, _ := measure.ByName("mse")
	res, err := stream.Run(context.Background(), stream.Options{
		Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1},
		CV: "kfold:4", Seed: 1, Lambdas: []float64{0.01, 1, 100}, Measure: mse,
	}, stream.Source{Files: files, Format: "svmlight"}, stream.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rows:", res.Rows, "passes:", len(res.Passes))
	fmt.Println("best λ:", res.Best.Lambda)
	fmt.Printf("weights: %.2f %.2f\n", res.Predictor.W.At(0, 0), res.Predictor.W.At(1, 0))
	// Output:
	// rows: 200 passes: 1
	// best λ: 0.01
	// weights: 2.00 -1.00
}
