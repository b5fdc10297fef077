package pairwise

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// TestCheckPairs holds CheckPairs (newLabels, which every learner runs) to
// its documented contract on small hand-made cases: the error class of each
// invalid input, and for valid ones whether the labels are complete and how
// many observations training uses — the pairs given plus, on a homogeneous
// network, their mirrors and (antisymmetric) the diagonal with label 0 —
// counted here by hand.
func TestCheckPairs(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name     string
		m, q     int
		sym      Symmetry
		pairs    []Pair
		y        []float64
		want     error // nil: valid
		complete bool
		obs      int
	}{
		{"2×3 complete", 2, 3, Heterogeneous, []Pair{{1, 2}, {0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}}, []float64{1, 2, 3, 4, 5, 6}, nil, true, 6},
		{"2×3 one missing", 2, 3, Heterogeneous, []Pair{{1, 2}, {0, 0}, {0, 1}, {0, 2}, {1, 0}}, []float64{1, 2, 3, 4, 5}, nil, false, 5},
		{"1×1", 1, 1, Heterogeneous, []Pair{{0, 0}}, []float64{3}, nil, true, 1},
		{"last row and column", 3, 2, Heterogeneous, []Pair{{2, 1}}, []float64{1}, nil, false, 1},
		{"row -1", 2, 3, Heterogeneous, []Pair{{0, 0}, {-1, 1}}, []float64{1, 2}, ErrPair, false, 0},
		{"row m", 2, 3, Heterogeneous, []Pair{{0, 0}, {2, 1}}, []float64{1, 2}, ErrPair, false, 0},
		{"column -1", 2, 3, Heterogeneous, []Pair{{0, 0}, {1, -1}}, []float64{1, 2}, ErrPair, false, 0},
		{"column q", 2, 3, Heterogeneous, []Pair{{0, 0}, {1, 3}}, []float64{1, 2}, ErrPair, false, 0},
		{"a pair twice", 2, 3, Heterogeneous, []Pair{{0, 1}, {1, 1}, {0, 1}}, []float64{1, 2, 1}, ErrPair, false, 0},
		// (0, 1) and (1, 0) are different pairs of two sets of objects
		{"both orientations", 2, 2, Heterogeneous, []Pair{{0, 1}, {1, 0}}, []float64{1, 2}, nil, false, 2},
		{"NaN label", 2, 3, Heterogeneous, []Pair{{0, 0}, {1, 1}}, []float64{1, nan}, learn.ErrShape, false, 0},
		{"+Inf label", 2, 3, Heterogeneous, []Pair{{0, 0}, {1, 1}}, []float64{inf, 1}, learn.ErrShape, false, 0},
		{"-Inf label", 2, 3, Heterogeneous, []Pair{{0, 0}, {1, 1}}, []float64{1, -inf}, learn.ErrShape, false, 0},
		{"no pairs", 2, 3, Heterogeneous, nil, nil, learn.ErrShape, false, 0},
		{"fewer labels", 2, 3, Heterogeneous, []Pair{{0, 0}, {1, 1}}, []float64{1}, learn.ErrShape, false, 0},
		{"symmetric, 2 rows 3 columns", 2, 3, Symmetric, []Pair{{0, 0}}, []float64{1}, learn.ErrShape, false, 0},
		{"antisymmetric, 3 rows 2 columns", 3, 2, Antisymmetric, []Pair{{0, 0}}, []float64{0}, learn.ErrShape, false, 0},

		// symmetric: (u, v) labels (v, u) too; (u, u) once
		{"symmetric complete", 3, 3, Symmetric, []Pair{{0, 1}, {0, 2}, {1, 2}, {0, 0}, {1, 1}, {2, 2}}, []float64{1, 2, 3, 4, 5, 6}, nil, true, 9},
		{"symmetric no diagonal", 3, 3, Symmetric, []Pair{{0, 1}, {2, 0}, {1, 2}}, []float64{1, 2, 3}, nil, false, 6},
		{"symmetric mirror agrees", 2, 2, Symmetric, []Pair{{0, 1}, {1, 0}, {1, 1}}, []float64{1, 1, 2}, nil, false, 3},
		{"symmetric mirror contradicts", 2, 2, Symmetric, []Pair{{0, 1}, {1, 0}}, []float64{1, 2}, ErrPair, false, 0},
		{"symmetric pair twice", 2, 2, Symmetric, []Pair{{0, 1}, {0, 1}}, []float64{1, 1}, ErrPair, false, 0},
		// antisymmetric: (v, u) gets −y; the diagonal is 0, added when not given
		{"antisymmetric complete", 3, 3, Antisymmetric, []Pair{{0, 1}, {2, 0}, {1, 2}}, []float64{1, 2, 3}, nil, true, 9},
		{"antisymmetric 4×4 complete", 4, 4, Antisymmetric, []Pair{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}, []float64{1, 2, 3, 4, 5, 6}, nil, true, 16},
		{"symmetric 4×4 complete", 4, 4, Symmetric, []Pair{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}, {0, 0}, {1, 1}, {2, 2}, {3, 3}}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, nil, true, 16},
		{"antisymmetric diagonal given", 2, 2, Antisymmetric, []Pair{{1, 1}, {0, 1}, {0, 0}}, []float64{0, 5, 0}, nil, true, 4},
		{"antisymmetric incomplete", 3, 3, Antisymmetric, []Pair{{0, 1}}, []float64{1}, nil, false, 5},
		{"antisymmetric mirror agrees", 2, 2, Antisymmetric, []Pair{{0, 1}, {1, 0}}, []float64{1, -1}, nil, true, 4},
		{"antisymmetric mirror contradicts", 2, 2, Antisymmetric, []Pair{{0, 1}, {1, 0}}, []float64{1, 1}, ErrPair, false, 0},
		{"antisymmetric diagonal not 0", 2, 2, Antisymmetric, []Pair{{0, 1}, {1, 1}}, []float64{1, 0.5}, ErrPair, false, 0},
	} {
		complete, obs, err := CheckPairs(tc.m, tc.q, tc.pairs, tc.y, tc.sym)
		if tc.want != nil {
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil || complete != tc.complete || obs != tc.obs {
			t.Errorf("%s: complete %v, %d observations, %v; want %v, %d", tc.name, complete, obs, err, tc.complete, tc.obs)
		}
	}
}

// TestMissingPairsMessage: the closed forms refuse incomplete data with an
// error naming how many of the m·q pairs have no label and the first five
// of them in row-major order, "…" when there are more — each case's
// missing pairs listed here by hand.
func TestMissingPairsMessage(t *testing.T) {
	rows, cols := labelSides(t, 3, 4)
	for _, tc := range []struct {
		skip []Pair
		want string
	}{
		{[]Pair{{2, 3}}, "1 of 12 pairs have no label: (2, 3)"},
		{[]Pair{{1, 2}, {0, 3}}, "2 of 12 pairs have no label: (0, 3), (1, 2)"},
		{[]Pair{{2, 0}, {0, 1}, {1, 3}, {1, 0}, {2, 2}}, "5 of 12 pairs have no label: (0, 1), (1, 0), (1, 3), (2, 0), (2, 2)"},
		{[]Pair{{2, 0}, {0, 1}, {1, 3}, {1, 0}, {2, 2}, {0, 0}}, "6 of 12 pairs have no label: (0, 0), (0, 1), (1, 0), (1, 3), (2, 0), …"},
	} {
		pairs, y := gridWithout(3, 4, tc.skip)
		want := fmt.Sprintf("%v: %s", ErrIncomplete, tc.want)
		if _, err := FitKron(rows, cols, pairs, y, Options{}); !errors.Is(err, ErrIncomplete) || err.Error() != want {
			t.Errorf("FitKron without %v:\n got %v\nwant %s", tc.skip, err, want)
		}
		if _, err := FitTwoStep(rows, cols, pairs, y, Options{}); !errors.Is(err, ErrIncomplete) || err.Error() != want+" (two-step RLS needs complete data)" {
			t.Errorf("FitTwoStep without %v: %v", tc.skip, err)
		}
	}
	// a homogeneous network: the mirrors count as labelled, the diagonal not
	s, _ := labelSides(t, 3, 1)
	if _, err := FitKron(s, nil, []Pair{{0, 1}, {2, 0}, {1, 1}}, []float64{1, 2, 3}, Options{Symmetry: Symmetric}); err == nil ||
		err.Error() != fmt.Sprintf("%v: 4 of 9 pairs have no label: (0, 0), (1, 2), (2, 1), (2, 2)", ErrIncomplete) {
		t.Errorf("symmetric network: %v", err)
	}
}

// gridWithout returns every pair of an m×q grid but those of skip, in
// row-major order, with arbitrary labels.
func gridWithout(m, q int, skip []Pair) ([]Pair, []float64) {
	var pairs []Pair
	var y []float64
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			if !slices.Contains(skip, Pair{i, j}) {
				pairs = append(pairs, Pair{i, j})
				y = append(y, float64(i-j))
			}
		}
	}
	return pairs, y
}

// labelSides returns sides of m and q objects (gaussian kernel, features
// drawn from a fixed seed).
func labelSides(t *testing.T, m, q int) (*Side, *Side) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(m), uint64(q)))
	side := func(n int) *Side {
		x := mat.NewDense(n, 2, nil)
		for i := 0; i < n; i++ {
			x.Set(i, 0, rng.NormFloat64())
			x.Set(i, 1, rng.NormFloat64())
		}
		s, err := NewSide(x, kernel.Gaussian{Gamma: 0.5}, false)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return side(m), side(q)
}
