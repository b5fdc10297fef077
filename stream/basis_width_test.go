package stream

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// TestSparseBasisNarrowerThanData: over a basis of sparse rows that lack
// the data's last features (a sparse row is zero beyond its last index),
// the model predicts the data it was fitted on — before, its points kept
// the basis rows' width and Predict failed with "rows of width 3 against
// rows of width 1" — and predicts as the same model saved and loaded
// (whose points take the model's width from its JSON).
func TestSparseBasisNarrowerThanData(t *testing.T) {
	text := "1 1:1\n2 1:2\n3 1:0.5 3:2\n1.5 2:1 3:0.5\n0.5 1:1.5 3:1\n2.5 2:2\n"
	name := writeFile(t, t.TempDir(), "data.svm", text)
	mse, _ := measure.ByName("mse")
	for _, std := range []bool{false, true} {
		opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "gaussian", Gamma: 0.5}, BasisRows: []int{0, 1}, CV: "loo",
			Lambdas: []float64{0.1, 1}, Measure: mse, Standardize: std}
		res, err := Run(context.Background(), opt, Source{Files: []string{name}, Format: "svmlight"}, RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		d, err := dataset.ReadFile(name, "svmlight", dataset.CSVOptions{}, dataset.SVMLightOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Predictor.Predict(d.X)
		if err != nil {
			t.Fatalf("standardized %v: predicting the training data: %v", std, err)
		}
		var buf bytes.Buffer
		if err := res.Predictor.Save(&buf); err != nil {
			t.Fatal(err)
		}
		loaded, err := model.Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		want, err := loaded.Predict(d.X)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < d.Rows(); i++ {
			if math.Abs(got.At(i, 0)-want.At(i, 0)) > 1e-12*math.Max(1, math.Abs(want.At(i, 0))) {
				t.Errorf("standardized %v, row %d: %v, the loaded model %v", std, i, got.At(i, 0), want.At(i, 0))
			}
		}
	}
}
