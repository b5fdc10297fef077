package cv_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/measure"
)

// TestPairScoreWithinTolerance checks the documented tie rule of
// PairScoreWithin: predictions that differ by at most tol count ½, those
// farther apart 1 or 0 by their order. The differences are exact binary
// fractions, so "at most" is tested at equality.
func TestPairScoreWithinTolerance(t *testing.T) {
	y := []float64{1, 0, 2}
	for _, tc := range []struct {
		name   string
		pi, pj float64
		tol    float64
		want   float64
	}{
		{"inside, right order", 1.25, 1, 0.5, 0.5},
		{"inside, wrong order", 1, 1.25, 0.5, 0.5},
		{"exactly tol apart", 1.5, 1.25, 0.25, 0.5},
		{"exactly tol apart, wrong order", 1.25, 1.5, 0.25, 0.5},
		{"just outside, right order", 1.5, 1.25, 0.125, 1},
		{"just outside, wrong order", 1.25, 1.5, 0.125, 0},
		{"equal, tol 0", 3, 3, 0, 0.5},
		{"equal infinite", math.Inf(1), math.Inf(1), 0.5, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cv.PairScoreWithin([]cv.Pair{{I: 0, J: 1}}, y, []float64{tc.pi}, []float64{tc.pj}, tc.tol)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// The tolerance applies pair by pair: (0,1) a tie, (2,1) right, (1,2) tie
	// at exactly tol, (0,2) wrong: (½ + 1 + ½ + 0) / 4.
	pairs := []cv.Pair{{I: 0, J: 1}, {I: 2, J: 1}, {I: 1, J: 2}, {I: 0, J: 2}}
	got, err := cv.PairScoreWithin(pairs, y, []float64{0.5, 4, 1, 3}, []float64{0.25, 1, 1.5, 2}, 0.5)
	if err != nil || got != 0.5 {
		t.Errorf("mixed: got %v, %v, want 0.5", got, err)
	}
}

// TestPairScoreIndexRange checks that a pair naming a row outside
// [0,len(y)) on either side is an error wrapping measure.ErrShape, never a
// panic, up to and including index len(y).
func TestPairScoreIndexRange(t *testing.T) {
	y := []float64{1, 0, 2}
	for _, p := range []cv.Pair{{I: 3, J: 0}, {I: 0, J: 3}, {I: 4, J: 1}, {I: 1, J: 7}, {I: -1, J: 1}, {I: 1, J: -1}, {I: 3, J: 3}} {
		if _, err := cv.PairScore([]cv.Pair{{I: 0, J: 1}, p}, y, []float64{1, 0}, []float64{0, 1}); !errors.Is(err, measure.ErrShape) {
			t.Errorf("pair %v: error %v, want measure.ErrShape", p, err)
		}
	}
}

// TestCheckNoRows checks that folds over zero rows are refused with the
// error Check documents for them — naming the fold and the index outside
// [0,0), or the empty fold — and that only a negative m is a "negative row
// count".
func TestCheckNoRows(t *testing.T) {
	for _, tc := range []struct {
		folds [][]int
		msg   string
	}{
		{[][]int{{0}}, "fold 0, position 0: index 0 outside [0,0)"},
		{[][]int{{}}, "fold 0 is empty"},
		{nil, "no folds"},
	} {
		err := cv.Check(tc.folds, 0)
		if !errors.Is(err, cv.ErrFolds) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Check(%v, 0) = %v, want an ErrFolds saying %q", tc.folds, err, tc.msg)
		}
	}
}
