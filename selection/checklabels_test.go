package selection

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// TestSearchChecksLabelsFirst: a measure that cannot score the labels (AUC
// on a continuous positive target) is refused before anything is trained:
// the objects here do not even fit the labels, which training would report.
// Without cross-validation there is nothing to score and nothing refused.
func TestSearchChecksLabelsFirst(t *testing.T) {
	y := mat.NewDense(5, 1, []float64{1.5, 2.5, 3.1, 4.2, 5})
	x := mat.NewDense(2, 1, []float64{0, 1}) // 2 objects for 5 labels
	run := func(sc Scheme) error {
		_, err := Search(Problem{Learner: rlsDescriptor(t), Input: &learn.Input{X: x, Y: y, Outputs: []string{"y"}}},
			Settings{Kernels: []kernel.Spec{{Name: "linear"}}, Lambdas: []float64{1}, Scheme: sc, Measure: mustMeasure(t, "auc")})
		return err
	}
	if err := run(Scheme{Kind: LOO, Name: "loo"}); !errors.Is(err, measure.ErrUndefined) {
		t.Errorf("loo: %v, want measure.ErrUndefined before training", err)
	}
	if err := run(Scheme{Kind: None, Name: "none"}); err == nil || errors.Is(err, measure.ErrUndefined) {
		t.Errorf("none: %v, want training's own error", err)
	}
}
