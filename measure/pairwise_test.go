package measure

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestRowAveragedCIndex(t *testing.T) {
	for _, tc := range []struct {
		name    string
		y, p    []float64
		rows    []int
		want    float64
		wantErr error
	}{
		// row 0: concordant (1); row 1: one of two pairs right with a tie (0.75 over 2 pairs: (1+0.5)/2)
		{"two rows", []float64{1, 2, 1, 2, 3}, []float64{0.1, 0.2, 5, 5, 6}, []int{0, 0, 1, 1, 1}, (1 + (0.5+1+1)/3) / 2, nil},
		{"row without pairs skipped", []float64{1, 2, 7, 7}, []float64{2, 1, 0, 9}, []int{3, 3, 4, 4}, 0, nil},
		{"order free", []float64{2, 1}, []float64{1, 2}, []int{5, 5}, 0, nil},
		{"no comparable row", []float64{1, 1, 2}, []float64{1, 2, 3}, []int{0, 0, 1}, 0, ErrUndefined},
		{"lengths", []float64{1, 2}, []float64{1, 2}, []int{0}, 0, ErrShape},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 2}, []int{0, 0}, 0, ErrUndefined},
	} {
		got, err := RowAveragedCIndex(tc.y, tc.p, tc.rows)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// The named measure "cindex-row" is RowAveragedCIndex with the query ids as
// the rows, averaged over the outputs like every measure; it needs the ids.
func TestCIndexRowMeasure(t *testing.T) {
	m, err := ByName("CIndex-Row")
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{1, 2, 1, 2, 3}
	p1 := []float64{0.1, 0.2, 5, 5, 6}
	p2 := []float64{0.2, 0.1, 6, 5, 4} // row 0 discordant, row 1: 0 of 3
	rows := []int{0, 0, 1, 1, 1}
	w1, _ := RowAveragedCIndex(y, p1, rows)
	w2, _ := RowAveragedCIndex(y, p2, rows)
	Y := mat.NewDense(5, 2, nil)
	P := mat.NewDense(5, 2, nil)
	Y.SetCol(0, y)
	Y.SetCol(1, y)
	P.SetCol(0, p1)
	P.SetCol(1, p2)
	got, err := m.Score(Y, P, rows)
	if err != nil || got != (w1+w2)/2 || w1 == w2 {
		t.Errorf("two outputs: %v, %v; want the mean of %v and %v", got, err, w1, w2)
	}
	if _, err := m.Score(Y, P, nil); !errors.Is(err, ErrNoQueries) {
		t.Errorf("no row ids: %v, want ErrNoQueries", err)
	}
	if !m.Better(0.6, 0.5) || !m.Ordinal {
		t.Errorf("cindex-row: higher must be better and the measure ordinal: %+v", m)
	}
}
