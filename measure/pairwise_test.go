package measure

import (
	"errors"
	"math"
	"testing"
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
