package dataset

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// OneVsAll turns a column of class labels into one ±1 output per class
// (+1 in the column of the row's class), the classes ascending. Learned
// together, the outputs cost one training. O(m·c + m log m).
func OneVsAll(y []float64) (*mat.Dense, []float64, error) {
	classes := slices.Clone(y)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	if len(classes) < 2 {
		return nil, nil, fmt.Errorf("%w: one-vs-all needs at least 2 classes, the labels have %d", ErrOptions, len(classes))
	}
	out, err := EncodeClasses(y, classes)
	return out, classes, err
}

// EncodeClasses writes the ±1 one-vs-all matrix of y for the given classes; a
// label that is not one of them is an error naming its row. O(m·c).
func EncodeClasses(y []float64, classes []float64) (*mat.Dense, error) {
	out := mat.NewDense(len(y), len(classes), nil)
	for i, v := range y {
		k, ok := slices.BinarySearch(classes, v)
		if !ok {
			return nil, fmt.Errorf("%w: row %d has class %v, which the model does not know (classes %v)", ErrOptions, i, v, classes)
		}
		row := out.RawRowView(i)
		for c := range row {
			row[c] = -1
		}
		row[k] = 1
	}
	return out, nil
}

// ClassNames formats class labels as the output names of a one-vs-all model.
func ClassNames(classes []float64) []string {
	out := make([]string, len(classes))
	for k, c := range classes {
		out[k] = strconv.FormatFloat(c, 'g', -1, 64)
	}
	return out
}
