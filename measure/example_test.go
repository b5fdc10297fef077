package measure_test

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/measure"
)

func ExampleAUC() {
	y := []float64{1, 1, 0, 0, 0}
	p := []float64{2, 1, 1, 0, 2} // ties in predictions count ½
	auc, err := measure.AUC(y, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("AUC = %.4f\n", auc)

	_, err = measure.AUC([]float64{1, 1}, []float64{0.3, 0.7})
	fmt.Println(errors.Is(err, measure.ErrUndefined))
	// Output:
	// AUC = 0.6667
	// true
}

func ExampleMeasure_Score() {
	// Two outputs, four examples.
	Y := mat.NewDense(4, 2, []float64{
		1, 1,
		0, 1,
		1, 0,
		0, 0,
	})
	P := mat.NewDense(4, 2, []float64{
		0.9, 0.8,
		0.1, 0.4,
		0.8, 0.6,
		0.3, 0.2,
	})
	m, err := measure.ByName("auc")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := m.Score(Y, P, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s = %.3f (higher is better: %t)\n", m.Name, s, m.HigherIsBetter)
	fmt.Println(m.Better(0.9, s))

	_, err = measure.ByName("rmsle")
	fmt.Println(err)
	// Output:
	// auc = 0.875 (higher is better: true)
	// true
	// measure: unknown measure "rmsle" (valid: mse, rmse, mae, r2, auc, cindex, cindex-row, disagreement, accuracy, balanced-accuracy, f1, spearman, multiclass-accuracy)
}
