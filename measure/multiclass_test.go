package measure

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMulticlassAccuracy(t *testing.T) {
	// one-vs-all labels for classes 0, 2, 1, 2
	y := mat.NewDense(4, 3, []float64{
		1, -1, -1,
		-1, -1, 1,
		-1, 1, -1,
		-1, -1, 1,
	})
	p := mat.NewDense(4, 3, []float64{
		0.9, 0.1, -0.5, // 0 ✓
		0.2, 0.3, 0.1, // 1 ✗ (true 2)
		-1, 0.5, 0.5, // tie between 1 and 2: first, 1 ✓
		0, 0, 0.1, // 2 ✓
	})
	m, err := ByName("multiclass-accuracy")
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Score(y, p, nil)
	if err != nil || got != 0.75 {
		t.Fatalf("got %v, %v; want 3/4", got, err)
	}
	if !m.HigherIsBetter || m.Pairwise {
		t.Error("flags")
	}
	if _, err := m.Score(mat.NewDense(2, 1, []float64{1, -1}), mat.NewDense(2, 1, nil), nil); !errors.Is(err, ErrUndefined) {
		t.Errorf("one column: %v", err)
	}
	if Argmax([]float64{math.NaN(), 1, 3, 3}) != 2 {
		t.Error("Argmax")
	}
}
