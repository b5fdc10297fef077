package measure

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCheckLabels: auc and balanced-accuracy refuse an output on one side
// of 0 (naming it), r2 a constant output; every other measure, and labels
// with both classes or some spread, pass — including labels of several
// values on both sides, which the binary measures read by their sign.
func TestCheckLabels(t *testing.T) {
	col := func(v ...float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }
	two := mat.NewDense(3, 2, []float64{1, 5, -1, 5, 1, 5}) // the second output constant and positive
	for _, tc := range []struct {
		measure string
		y       *mat.Dense
		outputs []string
		says    string // "" passes
	}{
		{"auc", col(1.5, 2.5, 3.1), []string{"y"}, `AUC needs two classes (y > 0 positive, y ≤ 0 negative) and needs both classes present, but every value of label "y" is > 0`},
		{"auc", col(-1, 0, -2), nil, "every value of output 0 is ≤ 0"},
		{"balanced-accuracy", col(0, 0, 0), nil, "balanced-accuracy needs two classes"},
		{"auc", col(1, 3, -1, 0.5), nil, ""},
		{"auc", two, []string{"a", "b"}, `label "b"`},
		{"r2", col(2, 2, 2), []string{"y"}, `label "y" has constant labels (2)`},
		{"r2", two, nil, "output 1 has constant labels (5)"},
		{"r2", col(2, 2, 2.0000001), nil, ""},
		{"accuracy", col(1, 2, 3), nil, ""},
		{"f1", col(-1, -1), nil, ""},
		{"mse", col(2, 2, 2), nil, ""},
		{"cindex", col(1, 1), nil, ""},
	} {
		m, err := ByName(tc.measure)
		if err != nil {
			t.Fatal(err)
		}
		err = m.CheckLabels(tc.y, tc.outputs)
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("%s on %v: %v, want no error", tc.measure, tc.y.RawMatrix().Data, err)
		case tc.says != "" && (!errors.Is(err, ErrUndefined) || !strings.Contains(err.Error(), tc.says)):
			t.Errorf("%s on %v: %v, want ErrUndefined saying %q", tc.measure, tc.y.RawMatrix().Data, err, tc.says)
		}
	}
	auc, _ := ByName("auc")
	if err := auc.CheckLabels(nil, nil); err != nil {
		t.Errorf("no labels: %v", err)
	}
}
