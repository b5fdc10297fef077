package selection

import (
	"reflect"
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// TestSearchSolutionOnly: with Settings.SolutionOnly, Search leaves the
// predictor unformed (nil) and returns everything else as without it — the
// curves, the chosen point, the solution's predictions and the scaler.
func TestSearchSolutionOnly(t *testing.T) {
	x, y := permProblem(30, 5, true)
	specs := []kernel.Spec{{Name: "gaussian", Gamma: 0.1}, {Name: "gaussian", Gamma: 1}}
	run := func(only bool) *SearchResult {
		res, err := Search(Problem{Learner: rlsDescriptor(t), Input: &learn.Input{X: x, Y: y}, Standardize: true},
			Settings{Kernels: specs, Lambdas: []float64{0.01, 0.1, 1, 10}, Scheme: Scheme{Kind: LOO, Name: "loo"},
				Measure: mustMeasure(t, "mse"), SolutionOnly: only})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	full, only := run(false), run(true)
	if full.Predictor == nil || only.Predictor != nil {
		t.Fatalf("predictors %v and %v; want one without SolutionOnly only", full.Predictor, only.Predictor)
	}
	if full.Best != only.Best || full.Lambda != only.Lambda || full.Value != only.Value || full.Kernel != only.Kernel {
		t.Errorf("chosen point (%d, %g, %v, %v) vs (%d, %g, %v, %v)", full.Best, full.Lambda, full.Kernel, full.Value,
			only.Best, only.Lambda, only.Kernel, only.Value)
	}
	for n := range full.Curves {
		if !reflect.DeepEqual(full.Curves[n].Curve, only.Curves[n].Curve) {
			t.Errorf("curve %d differs", n)
		}
	}
	if only.Scaler == nil || !reflect.DeepEqual(full.Scaler, only.Scaler) {
		t.Errorf("scaler %v, want %v", only.Scaler, full.Scaler)
	}
	a, _ := full.Solution.(learn.LeaveOneOuter).LeaveOneOut()
	b, _ := only.Solution.(learn.LeaveOneOuter).LeaveOneOut()
	if !reflect.DeepEqual(a.RawMatrix().Data, b.RawMatrix().Data) {
		t.Error("the solutions differ")
	}
}
